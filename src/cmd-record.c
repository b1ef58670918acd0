/* cmd-record: placeholder until the recording module lands (issue 2). */
#include <stdio.h>
#include "mmprof/cmd.h"

int cmd_record(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "mmprof: record is not built yet\n");
	return EXIT_ERROR;
}
