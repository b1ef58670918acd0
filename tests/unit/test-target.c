/*
 * Unit tests of target__check_cpus: -C's list against sysfs's CPU lists;
 * target__merge_cpus: a CPU named twice, once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/target.h"
#include "tap.h"

static void is_cpus(const char *list, const char *online, const char *present, int want,
		    const char *msg)
{
	struct errmsg e = { "" };
	int rc = target__check_cpus(list, online, present, &e);

	ok(rc == want && (!msg || strstr(e.msg, msg)), "-C '%s' (online %.*s, present %s): %d %s",
	   list, online ? (int)strcspn(online, "\n") : 1, online ? online : "?",
	   present ? present : "?", rc, e.msg);
}

static void is_merged(const char *list, const char *want)
{
	char *got = target__merge_cpus(list);

	ok(got && !strcmp(got, want), "merge '%s': '%s' (want '%s')", list, got ? got : "(null)", want);
	free(got);
}

int main(void)
{
	is_cpus("0", "0-1", "0-1", 0, NULL);
	is_cpus("0-1", "0-1\n", "0-1", 0, NULL);
	is_cpus("1,0", "0-1", "0-1", 0, NULL);
	is_cpus("0-3,8", "0-7,8-15", "0-15", 0, NULL);
	is_cpus("99", "0-1", "0-1", -ENODEV, "CPU 99 does not exist (this machine has CPUs 0-1)");
	is_cpus("1-5", "0-1", "0-1", -ENODEV, "CPU 2 does not exist (this machine has CPUs 0-1)");
	is_cpus("3", "0-2", "0-3", -ENODEV, "CPU 3 is offline (CPUs 0-2 are online)");
	is_cpus("5", "0-3,5", NULL, 0, NULL);
	is_cpus("4", "0-3,5", NULL, -ENODEV, "CPU 4 does not exist (this machine has CPUs 0-3,5)");
	is_cpus("99999999999", "0-1", "0-1", -EINVAL, "invalid CPU list");
	/* sysfs unreadable: the syntax only */
	is_cpus("99", NULL, NULL, 0, NULL);
	is_cpus("0,abc", NULL, NULL, -EINVAL,
		"invalid CPU list '0,abc' for -C; expected CPU numbers and ranges such as 0-3,8");
	is_cpus("", "0-1", "0-1", -EINVAL, "invalid CPU list");
	is_cpus("0,", "0-1", "0-1", -EINVAL, "invalid CPU list");
	is_cpus(",0", "0-1", "0-1", -EINVAL, "invalid CPU list");
	is_cpus("1-0", "0-1", "0-1", -EINVAL, "invalid CPU list");
	is_cpus("-1", "0-1", "0-1", -EINVAL, "invalid CPU list");
	is_cpus("0 ", "0-1", "0-1", -EINVAL, "invalid CPU list");
	/* a CPU named twice is accepted (libperf's parser refuses it) and once in the list */
	is_cpus("0-1,1", "0-1", "0-1", 0, NULL);
	is_cpus("0-1,1,99", "0-1", "0-1", -ENODEV, "CPU 99 does not exist (this machine has CPUs 0-1)");
	is_merged("0-1,1", "0-1");
	is_merged("1,1", "1");
	is_merged("8,0-3,2", "0-3,8");
	is_merged("0-3,2-5,7,6", "0-7");
	is_merged("4-6,0,4", "0,4-6");
	is_merged("1048575,1048575", "1048575");
	/* no CPU twice: the list as given, byte for byte (the file's meta target) */
	is_merged("0-3,8", "0-3,8");
	is_merged("1,0", "1,0");
	is_merged("0,1", "0,1");
	ok(target__merge_cpus(NULL) == NULL, "merge of no list: NULL");
	return done_testing();
}
