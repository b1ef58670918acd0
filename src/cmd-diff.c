/* cmd-diff: placeholder until the diff module lands (issue 4). */
#include <stdio.h>
#include "mmprof/cmd.h"

int cmd_diff(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "mmprof: diff is not built yet\n");
	return EXIT_ERROR;
}
