/*
 * target: the watched target of a record or stat command line; see
 * include/mmprof/target.h.
 */
#include <errno.h>

#include "mmprof/target.h"

int target__check(bool has_command, const char *pid_list, bool system_wide,
		  const char *cpu_list, const char *verb, struct target_spec *out,
		  struct errmsg *e)
{
	/* perf: -C alone is system-wide on those CPUs */
	bool all = system_wide || cpu_list;

	if (pid_list && all)
		return errmsg__set(e, -EINVAL, "give only one of -p and -a (or -C)%s",
				   has_command ? "; the command after '--' may come with either" : "");
	if (!has_command && !pid_list && !all)
		return errmsg__set(e, -EINVAL, "nothing to %s: give a command after '--', -p PID "
				   "or -a", verb);
	out->command = has_command;
	out->mode = all ? TARGET_SYSTEM : pid_list ? TARGET_PID : TARGET_FORK;
	return 0;
}

const char *target__mode_name(enum target_mode mode)
{
	static const char *const names[] = { "fork", "pid", "system" };

	return names[mode];
}
