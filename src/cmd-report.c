/* cmd-report: placeholder until the report module lands (issue 2). */
#include <stdio.h>
#include "mmprof/cmd.h"

int cmd_report(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "mmprof: report is not built yet\n");
	return EXIT_ERROR;
}
