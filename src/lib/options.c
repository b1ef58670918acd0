/* options: table-driven option parsing and --help; see include/mmprof/options.h. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/xalloc.h"

int options__parse_pids(const char *list, pid_t **pids, size_t *nr,
			size_t *alloc)
{
	const char *s = list;

	while (*s) {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v <= 0 || v > INT_MAX || (*end && *end != ',')) {
			error("invalid value '%s' for -p; expected PID[,PID...]", list);
			return -1;
		}
		if (kill((pid_t)v, 0) < 0 && errno == ESRCH) {
			error("no process with pid %ld", v);
			return -1;
		}
		XGROW(*pids, *alloc, *nr);
		(*pids)[(*nr)++] = (pid_t)v;
		s = *end ? end + 1 : end;
	}
	return 0;
}

static int has_arg(const struct option_desc *o)
{
	return o->type != OPTION_BOOL && o->type != OPTION_GROUP;
}

void options__usage(const struct option_desc *opts, const char *const *usage)
{
	const struct option_desc *o;
	size_t i;

	for (i = 0; usage[i]; i++)
		printf("%s %s\n", i ? "   or:" : "usage:", usage[i]);
	for (o = opts; o->type != OPTION_END; o++) {
		char left[80];
		int n = 0;

		if (o->type == OPTION_GROUP) {
			printf("\n%s\n", o->help);
			continue;
		}
		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - n, "-%c", o->short_name);
		else
			n += snprintf(left + n, sizeof(left) - n, "  ");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - n, "%s--%s%s",
				      o->short_name ? ", " : "  ",
				      (o->flags & OPT_NEGATABLE) ? "[no-]" : "",
				      o->long_name);
		if (has_arg(o) && n < (int)sizeof(left))
			snprintf(left + n, sizeof(left) - n, " %s", o->argname ? o->argname : "ARG");
		printf("    %-26s %s\n", left, o->help);
	}
}

static const struct option_desc *find_short(const struct option_desc *opts, int c)
{
	for (; opts->type != OPTION_END; opts++)
		if (opts->short_name == c && opts->type != OPTION_GROUP)
			return opts;
	return NULL;
}

static int set_value(const struct option_desc *o, const char *arg, int negated,
		     const char *cmd)
{
	char *end;

	switch (o->type) {
	case OPTION_BOOL:
		*(int *)o->value = !negated;
		return 0;
	case OPTION_INTEGER: {
		long v;

		errno = 0;
		v = strtol(arg, &end, 0);
		if (errno || end == arg || *end || v < -2147483647L || v > 2147483647L)
			break;
		/*
		 * Every int option is a count, a size or a run's index, and -1
		 * is the default's mark: 'report --run -1' printed every run and
		 * '--max-stack -1' 127 frames without a word.
		 */
		if (v < 0) {
			char sh[3] = { '-', (char)o->short_name, '\0' };

			error("invalid value '%s' for %s%s: a whole number, 0 or "
				"more", arg, o->long_name ? "--" : sh,
				o->long_name ? o->long_name : "");
			return -1;
		}
		*(int *)o->value = (int)v;
		return 0;
	}
	case OPTION_DOUBLE: {
		double v;

		errno = 0;
		v = strtod(arg, &end);
		if (errno || end == arg || *end)
			break;
		/*
		 * Every number option is a time, a rate, a probability or a
		 * floor: nan and inf are none (--alpha nan passed every test
		 * and --threshold-pct inf none, which disarmed the gates).
		 */
		if (!isfinite(v) || v < 0 || ((o->flags & OPT_FRACTION) && !(v > 0 && v <= 1)) ||
		    ((o->flags & OPT_POINTS) && v > 100)) {
			error("invalid value '%s' for --%s: %s", arg,
				o->long_name, o->flags & OPT_FRACTION ? "a number above 0, at most 1" :
				o->flags & OPT_POINTS ? "a number of points from 0 to 100" :
				"a finite number, 0 or more");
			return -1;
		}
		*(double *)o->value = v;
		return 0;
	}
	case OPTION_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPTION_LIST:
		if (o->flags & OPT_SPLIT) {
			const char *s = arg;

			while (*s) {
				size_t len = strcspn(s, ",");
				char *item = xstrndup(s, len);

				if (len)
					strlist__add(o->value, item);
				free(item);
				s += len;
				if (*s == ',')
					s++;
			}
		} else {
			strlist__add(o->value, arg);
		}
		return 0;
	case OPTION_CALLBACK:
		return o->cb(o->value, arg);
	default:
		break;
	}
	if (o->long_name)
		error("invalid value '%s' for --%s; see 'mmprof %s --help'", arg, o->long_name, cmd);
	else
		error("invalid value '%s' for -%c; see 'mmprof %s --help'", arg, o->short_name, cmd);
	return -1;
}

int options__parse(int argc, char **argv, const struct option_desc *opts,
		   const char *const *usage)
{
	struct option *lopts;
	char shorts[256] = "+:h";
	size_t nopts = 0, nl = 0, ns = 3, i;
	const struct option_desc *o;
	const char *cmd = argv[0];
	int ret = -1, c, li;

	for (o = opts; o->type != OPTION_END; o++)
		nopts++;
	/* each option may need a --no- twin, plus --help and the terminator */
	lopts = xcalloc(2 * nopts + 2, sizeof(*lopts));
	for (i = 0; i < nopts; i++) {
		o = &opts[i];
		if (o->type == OPTION_GROUP)
			continue;
		if (o->short_name && ns + 3 < sizeof(shorts)) {
			shorts[ns++] = (char)o->short_name;
			if (has_arg(o))
				shorts[ns++] = ':';
		}
		if (o->long_name) {
			lopts[nl].name = o->long_name;
			lopts[nl].has_arg = has_arg(o) ? required_argument : no_argument;
			lopts[nl].val = 1000 + (int)i;
			nl++;
			if (o->flags & OPT_NEGATABLE) {
				size_t len = strlen(o->long_name) + 4;
				char *neg = xmalloc(len);

				snprintf(neg, len, "no-%s", o->long_name);
				lopts[nl].name = neg;
				lopts[nl].val = 3000 + (int)i;
				nl++;
			}
		}
	}
	lopts[nl].name = "help";
	lopts[nl].val = 'h';
	nl++;
	shorts[ns] = '\0';

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lopts, &li)) != -1) {
		int negated = 0;

		if (c == 'h' && !find_short(opts, 'h')) {
			options__usage(opts, usage);
			ret = -2;
			goto out;
		}
		if (c == '?') {
			/* glibc sets optopt to a long flag's code when it was
			 * given "=value": name the flag, not that code's byte */
			if (optopt >= 1000)
				error("option '--%s%s' takes no value; see 'mmprof %s --help'", optopt >= 3000 ? "no-" : "",
					opts[optopt - (optopt >= 3000 ? 3000 : 1000)].long_name, cmd);
			else if (optopt)
				error("unknown option '-%c'; see 'mmprof %s --help'", optopt, cmd);
			else
				error("unknown option '%s'; see 'mmprof %s --help'", argv[optind - 1], cmd);
			goto out;
		}
		if (c == ':') {
			error("option '%s' needs a value; see 'mmprof %s --help'", argv[optind - 1], cmd);
			goto out;
		}
		if (c >= 3000) {
			o = &opts[c - 3000];
			negated = 1;
		} else if (c >= 1000) {
			o = &opts[c - 1000];
		} else {
			o = find_short(opts, c);
		}
		if (!o || set_value(o, optarg, negated, cmd) < 0)
			goto out;
	}
	ret = optind;
out:
	for (i = 0; i < nl; i++)
		if (lopts[i].val >= 3000)
			free((char *)lopts[i].name);
	free(lopts);
	return ret;
}

/* options__parse stops at the first non-option: parse again from there
 * with the command name in front (see options.h). */
int options__parse_anywhere(int argc, char **argv, const struct option_desc *opts,
			    const char *const *usage, char **pos, int max_pos)
{
	char **args = xmalloc(((size_t)argc + 1) * sizeof(*args));
	int nargs = argc, npos = 0, i, ret = 0;

	memcpy(args, argv, (size_t)argc * sizeof(*args));
	args[argc] = NULL;
	for (;;) {
		i = options__parse(nargs, args, opts, usage);
		if (i < 0) {
			ret = i;
			break;
		}
		if (i > 1 && !strcmp(args[i - 1], "--")) {	/* the rest is positional */
			for (; i < nargs; i++)
				if (npos < max_pos + 1)
					pos[npos++] = args[i];
			ret = npos;
			break;
		}
		if (i >= nargs) {
			ret = npos;
			break;
		}
		if (npos < max_pos + 1)
			pos[npos++] = args[i];
		/* drop args[1..i] (parsed options and the positional) */
		memmove(args + 1, args + i + 1, (size_t)(nargs - i) * sizeof(*args));
		nargs -= i;
	}
	free(args);
	return ret;
}
