/*
 * cmd: the subcommands.  Each lives in src/cmd-<name>.c as
 * cmd_<name>(argc, argv) with argv[0] the subcommand name, and returns the
 * process exit status (mmprof.1): 0 success, 1 a tripped CI gate (diff), 2 an error,
 * 3 the workload failed (record, stat: a run exited non-zero or was killed;
 * the file is written and complete).
 *
 * Adding a command: the function here, a row in src/mmprof.c's table, the
 * file src/cmd-<name>.c (found by the Makefile's wildcard), a man page
 * man/mmprof-<name>.1, and tests (tests/integration/t*-<name>*.sh).
 */
#ifndef MMPROF_CMD_H
#define MMPROF_CMD_H

#define EXIT_GATE 1
#define EXIT_ERROR 2
#define EXIT_WORKLOAD 3

int cmd_record(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_strip(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* Whether name is a row of the command table (src/mmprof.c). */
int cmd__exists(const char *name);

#endif
