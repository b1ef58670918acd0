/*
 * test-trace: tracepoint formats and field decoding through libtraceevent:
 * a format text given directly (known offsets, signed fields, strings,
 * bounds checks on short records) and the running kernel's sched_switch
 * loaded from tracefs (this machine has it; the test must not skip).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/trace.h"
#include "tap.h"

static const char format[] =
	"name: my_ev\n"
	"ID: 4242\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:int delta;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long addr;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"comm=%s delta=%d addr=%lx\", REC->comm, REC->delta, REC->addr\n";

static void test_text(void)
{
	struct trace *t = trace__new();
	struct trace_field comm, delta, addr, none;
	struct errmsg e = { "" };
	unsigned char raw[40];
	uint16_t type = 4242;
	int32_t d = -7;
	uint64_t a = 0x7f0012345000ULL, v = 0;
	char buf[32];

	is_int(trace__parse_format(t, "mysys", format, sizeof(format) - 1, &e), 4242,
	       "a format text parses to its id");
	is_int(trace__parse_format(t, "mysys", format, sizeof(format) - 1, &e), 4242,
	       "parsing it again is harmless");
	is_str(trace__event_name(t, 4242), "mysys:my_ev", "its name is sys:name");
	ok(trace__parse_format(t, "mysys", "name: x\nformat:\n", 17, &e) == -EINVAL &&
	   strstr(e.msg, "ID"), "a format without an ID is refused: %s", e.msg);
	is_int(trace__field(t, 4242, "comm", &comm), 0, "field comm");
	is_int(trace__field(t, 4242, "delta", &delta), 0, "field delta");
	is_int(trace__field(t, 4242, "addr", &addr), 0, "field addr");
	is_int(trace__field(t, 4242, "nope", &none), -ENOENT, "an absent field");
	is_int(trace__field(t, 99, "addr", &none), -ENOENT, "a field of an unloaded event");
	is_int(addr.offset, 32, "addr offset");
	ok(delta.is_signed && comm.is_array, "signedness and arrays");

	memset(raw, 0, sizeof(raw));
	memcpy(raw, &type, 2);
	memcpy(raw + 8, "pingpong-worker!", 16);	/* no NUL inside the field */
	memcpy(raw + 24, &d, 4);
	memcpy(raw + 32, &a, 8);
	is_int(trace__record_id(raw, sizeof(raw)), 4242, "a record's id is its common_type");
	is_int(trace__record_id(raw, 1), -EINVAL, "a 1-byte record has no id");
	ok(!trace__read_u64(t, &addr, raw, sizeof(raw), &v) && v == a, "addr decodes");
	ok(!trace__read_u64(t, &delta, raw, sizeof(raw), &v) && (int64_t)v == -7,
	   "a signed int is sign-extended");
	ok(!trace__read_str(&comm, raw, sizeof(raw), buf, sizeof(buf)) &&
	   !strcmp(buf, "pingpong-worker!"), "a full char array is terminated");
	ok(!trace__read_str(&comm, raw, sizeof(raw), buf, 5) && !strcmp(buf, "ping"),
	   "and truncated to the buffer");
	is_int(trace__read_u64(t, &addr, raw, 39, &v), -EINVAL, "a field past the record end");
	is_int(trace__read_str(&comm, raw, 20, buf, sizeof(buf)), -EINVAL,
	       "a string past the record end");
	is_int(trace__read_u64(t, &comm, raw, sizeof(raw), &v), -EINVAL,
	       "an array is not a number");
	trace__free(t);
	trace__free(NULL);
}

static void test_tracefs(void)
{
	struct trace *t = trace__new();
	struct trace_field prev_pid, next_comm;
	struct errmsg e = { "" };
	int id = trace__load(t, "sched", "sched_switch", &e);

	ok(id > 0, "sched:sched_switch loads from tracefs (%d) %s", id, e.msg);
	ok(trace__exists("sched", "sched_switch") && !trace__exists("sched", "no_such_event"),
	   "trace__exists");
	ok(!trace__exists("..", "sched_switch") && !trace__exists("sched/..", "x"),
	   "names cannot climb out of tracefs");
	is_int(trace__field(t, id, "prev_pid", &prev_pid), 0, "prev_pid");
	is_int(trace__field(t, id, "next_comm", &next_comm), 0, "next_comm");
	is_int(prev_pid.size, 4, "pid_t is 4 bytes");
	is_int(next_comm.size, 16, "comm is 16 bytes");
	is_int(trace__load(t, "sched", "no_such_event", &e), -ENOENT, "a missing tracepoint");
	ok(strstr(e.msg, "sched:no_such_event") != NULL, "named in the message: %s", e.msg);
	trace__free(t);
}

int main(void)
{
	test_text();
	test_tracefs();
	return done_testing();
}
