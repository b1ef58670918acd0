#!/bin/sh
# t811-hostile-names: nothing a profiled program names reaches a terminal
# or a line format raw (issue 14 items 5 and 6; the rule is escape.h's
# text rule, Documentation/robustness.md):
#   - a real recording whose symbol, DSO, comm and event names (and the
#     host and kernel in its meta, and a tracepoint key) were given ESC
#     sequences (OSC title, clear-screen, alt-screen), BEL, newlines, ';'
#     and ' ' with sqlite3 prints no ESC, no BEL and no extra line on
#     stdout or stderr in any text view of report (keys, --runs, --tree
#     both ways, --unresolved, --tracepoints, --folded, --folded --comm),
#     diff (the lkp table, --all, -g, markdown, csv) or export -f folded;
#     each view has as many lines as it has for the file before the edit,
#     and folded counts still add up to the samples;
#   - the JSON views stay valid JSON;
#   - live: a workload that writes "a 99999999999\n" to /proc/self/comm
#     (the comm really has the newline) gives export -f folded --comm
#     lines whose counts add up to the samples, none of them forged;
#   - live: a program whose hot function's ELF .strtab name holds ESC
#     sequences and BEL (a GAS quoted symbol) shows it escaped in report's
#     keys, --tree and --folded; so does a JIT's perf-map name.

. "$(dirname "$0")/lib.sh"
tap_setup t811

plan 16

esc=$(printf '\033')
bel=$(printf '\007')

"$MMPROF" record -q -r 2 -o "$tmp/a.data" -- "$wl/page-fault" --iterations 20 --size 4M \
	>/dev/null 2>"$tmp/err" &&
"$MMPROF" record -q -r 2 -o "$tmp/b.data" -- "$wl/page-fault" --iterations 40 --size 4M \
	>/dev/null 2>"$tmp/err"
ok $? "record two files of page-fault"
[ -s "$tmp/err" ] && diag "$tmp/err"

# the hostile names: appended to every name the views print
evil="char(27) || ']0;pwned' || char(7) || char(27) || '[2J' || char(27) || '[H' || char(10) ||
      'x;y 99999999999 ' || char(27) || '[?1049h' || char(13)"
# the stack entries stay as they are, so that views count the same short
# stacks (report --unresolved) as in the plain file; hw.data renames them too
# (all of src/report/unresolved.c's stack_entry)
entries="'_start', '__libc_start_main', '__libc_start_call_main', '_dl_start_user', '_dl_start',
	'main', 'start_thread', 'clone', 'clone3', '__clone', '__clone3', 'thread_start'"
cp "$tmp/a.data" "$tmp/hw.data"
sqlite3 "$tmp/hw.data" "UPDATE strings SET s = s || $evil WHERE id IN (SELECT sym FROM frames UNION SELECT dso FROM frames)"
for f in a b; do
	cp "$tmp/$f.data" "$tmp/h$f.data"
	sqlite3 "$tmp/h$f.data" "
		UPDATE strings SET s = s || $evil WHERE id IN
			(SELECT sym FROM frames UNION SELECT dso FROM frames
			 UNION SELECT comm FROM stack_counts UNION SELECT name FROM events)
			AND s NOT IN ($entries);
		UPDATE meta SET value = value || $evil WHERE key IN ('hostname', 'kernel_release');
		INSERT INTO strings(id, s) SELECT max(id) + 1, 'tracepoint.sched:x' || $evil || '.count' FROM strings;
		INSERT INTO strings(id, s) SELECT max(id) + 1, 'tracepoint.sched:x' || $evil || '.comm.a' || $evil FROM strings;
		INSERT INTO metrics(run, key, value) SELECT 0, max(id) - 1, 7 FROM strings;
		INSERT INTO metrics(run, key, value) SELECT 0, max(id), 7 FROM strings;
		INSERT INTO strings(id, s) SELECT max(id) + 1, 'tracepoint.sched:x.count' FROM strings;
		INSERT INTO strings(id, s) SELECT max(id) + 1, 'tracepoint.sched:x.comm.a' FROM strings;"
	# the same tracepoint keys without the names, so that line counts compare
	sqlite3 "$tmp/$f.data" "
		INSERT INTO strings(id, s) SELECT max(id) + 1, 'tracepoint.sched:x.count' FROM strings;
		INSERT INTO strings(id, s) SELECT max(id) + 1, 'tracepoint.sched:x.comm.a' FROM strings;
		INSERT INTO metrics(run, key, value) SELECT 0, max(id) - 1, 7 FROM strings;
		INSERT INTO metrics(run, key, value) SELECT 0, max(id), 7 FROM strings;"
done
test "$(sqlite3 "$tmp/ha.data" "SELECT count(*) FROM strings WHERE instr(s, char(27)) AND instr(s, char(10))")" -gt 3 &&
	"$MMPROF" report --keys "$tmp/ha.data" >/dev/null 2>&1
ok $? "the hostile copies hold names with ESC and newlines, and load"

# views: NAME|COMMAND (FILE is substituted); each is run on the plain and the hostile file
cat >"$tmp/views" <<'EOF'
report keys|report FILE
report --runs|report --runs FILE
report --tree|report --tree FILE
report --tree -g caller|report --tree -g caller FILE
report --unresolved|report --unresolved FILE
report --tracepoints|report --tracepoints FILE
report --folded|report --folded FILE
report --folded --comm|report --folded --comm FILE
export -f folded|export -f folded -o - FILE
export -f folded --comm|export -f folded --comm -o - FILE
EOF

# check NAME COMMAND PLAIN HOSTILE: no ESC/BEL/CR in the hostile run's
# stdout and stderr, as many lines on stdout as the plain run's, and every
# line of stderr a message of mmprof's (the hostile names may add a warning:
# "main" is no longer main)
check() {
	# shellcheck disable=SC2086
	"$MMPROF" $(echo "$2" | sed "s|FILE|$3|g") >"$tmp/p.out" 2>"$tmp/p.err"
	rc_p=$?
	# shellcheck disable=SC2086
	"$MMPROF" $(echo "$2" | sed "s|FILE|$4|g") >"$tmp/h.out" 2>"$tmp/h.err"
	rc_h=$?
	raw=$(cat "$tmp/h.out" "$tmp/h.err" | grep -c -e "$esc" -e "$bel" -e "$(printf '\r')")
	lp=$(wc -l <"$tmp/p.out")
	lh=$(wc -l <"$tmp/h.out")
	other=$(grep -c -v '^mmprof' "$tmp/h.err")
	if [ $rc_p -ne 0 ] || [ $rc_h -ne $rc_p ] || [ "$raw" -ne 0 ] || [ "$lp" -ne "$lh" ] ||
	   [ "$other" -ne 0 ] || ! [ -s "$tmp/h.out" ]; then
		echo "# $1: exit $rc_p/$rc_h, $raw lines with raw controls, $lp/$lh lines, $other stray on stderr"
		grep -m 3 -e "$esc" -e "$bel" "$tmp/h.out" "$tmp/h.err" | cat -v | sed 's/^/#   /'
		return 1
	fi
	return 0
}

bad=0
while IFS='|' read -r name cmd; do
	check "$name" "$cmd" "$tmp/a.data" "$tmp/ha.data" || bad=1
done <"$tmp/views"
test $bad -eq 0
ok $? "report and export text views: no raw ESC, BEL or CR, no extra line"

"$MMPROF" report --keys "$tmp/hw.data" 2>&1 >/dev/null | grep -q "^mmprof: warning: .*stop in .*\\\\x1b\\]0;pwned\\\\x07"
ok $? "the unresolved warning on stderr names the DSO, escaped"

"$MMPROF" report --folded --comm "$tmp/ha.data" >"$tmp/f.out" 2>/dev/null
grep -q '^page-fault\\x1b\]0:pwned\\x07\\x1b\[2J\\x1b\[H\\x0ax:y_99999999999_\\x1b\[?1049h\\x0d;' "$tmp/f.out"
ok $? "folded: the comm's ';' is ':', its ' ' '_', its controls written xNN"
want=$(sqlite3 "$tmp/ha.data" 'SELECT sum(samples) FROM runs')
got=$(awk '{ s += $NF } END { print s }' "$tmp/f.out")
test "$got" = "$want" && ! grep -qv ' [0-9][0-9]*$' "$tmp/f.out"
ok $? "folded --comm counts add up to the samples ($got of $want), every line ends in its count"

bad=0
for v in "" --all -g "-g --all" "--format markdown --all" "--format csv --all"; do
	check "diff $v" "diff $v FILE" "$tmp/a.data $tmp/b.data" "$tmp/ha.data $tmp/hb.data" || bad=1
done
test $bad -eq 0
ok $? "diff (lkp table, --all, -g, markdown, csv): no raw ESC, BEL or CR, no extra line"

"$MMPROF" diff -g --all "$tmp/ha.data" "$tmp/hb.data" >"$tmp/d.out" 2>/dev/null
grep -q '^kernel .*\\x1b\[2J' "$tmp/d.out" && grep -q 'call chains whose share changed' "$tmp/d.out" &&
	grep -q '\\x1b\]0;pwned\\x07.*\\x1b\]0;pwned\\x07' "$tmp/d.out"
ok $? "diff's header and rows show the names escaped"

ok_json=0
for cmd in "report --json" "report --json --tree" "diff --format json" "diff -g --format json"; do
	case $cmd in
	diff*) files="$tmp/ha.data $tmp/hb.data" ;;
	*) files="$tmp/ha.data" ;;
	esac
	# shellcheck disable=SC2086
	"$MMPROF" $cmd $files 2>/dev/null | python3 -c 'import json, sys; json.load(sys.stdin)' 2>"$tmp/jerr" ||
		{ echo "# $cmd: not JSON: $(tail -1 "$tmp/jerr")"; ok_json=1; }
done
test $ok_json -eq 0
ok $ok_json "the JSON views of the hostile files are valid JSON"

# live: the comm a process gives itself, newline included (the kernel keeps it)
"$MMPROF" record -q -o "$tmp/comm.data" -- sh -c \
	'printf "a 99999999999\n" > /proc/self/comm; i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done' \
	>/dev/null 2>"$tmp/err"
ok $? "record a shell that renames itself 'a 99999999999' and a newline"
[ -s "$tmp/err" ] && diag "$tmp/err"
test "$(sqlite3 "$tmp/comm.data" "SELECT count(*) FROM strings WHERE s = 'a 99999999999' || char(10)
	AND id IN (SELECT comm FROM stack_counts)")" = 1
ok $? "the comm really changed: the file has samples of 'a 99999999999' and a newline"
"$MMPROF" export -f folded --comm -o "$tmp/comm.folded" "$tmp/comm.data" 2>/dev/null
want=$(sqlite3 "$tmp/comm.data" 'SELECT sum(samples) FROM runs')
got=$(awk '{ s += $NF } END { print s }' "$tmp/comm.folded")
test -n "$want" && test "$got" = "$want" && ! grep -q '^a 99999999999' "$tmp/comm.folded" &&
	grep -q '^a_99999999999\\x0a;' "$tmp/comm.folded"
ok $? "export -f folded --comm: counts add up to the samples ($got of $want), no forged line"

# live: an ELF symbol named by its program (GAS quotes allow any byte but NUL and newline)
cat >"$tmp/evil.c" <<'EOF'
#define EVIL "\"hot\033]0;pwned\007\033[2J\033[?1049hx;y 99999\""
__asm__(".text\n"
	".globl hot_entry\n.type hot_entry, @function\nhot_entry:\n\tjmp " EVIL "\n"
	".globl " EVIL "\n.type " EVIL ", @function\n" EVIL ":\n"
	"\tmov %rdi, %rcx\n1:\tdec %rcx\n\tjnz 1b\n\tret\n"
	".size " EVIL ", .-" EVIL "\n");
void hot_entry(unsigned long n);
int main(void)
{
	hot_entry(600000000UL);
	return 0;
}
EOF
cc -O1 -o "$tmp/evil" "$tmp/evil.c" 2>"$tmp/err" && nm "$tmp/evil" | grep -q "hot$esc" &&
	"$MMPROF" record -q -o "$tmp/evil.data" -- "$tmp/evil" >/dev/null 2>>"$tmp/err"
ok $? "record a program whose hot function's .strtab name holds ESC and BEL"
[ -s "$tmp/err" ] && diag "$tmp/err"
bad=0
for v in "" --keys --tree --folded; do
	# shellcheck disable=SC2086
	"$MMPROF" report $v "$tmp/evil.data" >"$tmp/out" 2>&1
	if grep -q -e "$esc" -e "$bel" "$tmp/out" || ! grep -q 'hot\\x1b\]0[;:]pwned\\x07\\x1b\[2J' "$tmp/out"; then
		echo "# report $v: raw controls, or the name not shown escaped"
		bad=1
	fi
done
test $bad -eq 0
ok $? "report keys, --tree, --folded show the ELF name escaped (';' as ':' in folded), no raw ESC or BEL"

# live: a JIT's perf map names its code (/tmp/perf-PID.map, the program's own file)
cat >"$tmp/jit.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	/* mov %rdi,%rcx; 1: dec %rcx; jnz 1b; ret */
	static const unsigned char code[] = { 0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *f;

	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(f = fopen(path, "w")))
		return 1;
	fprintf(f, "%lx %zx jit\033]0;pwned\007\033[2J\033[?1049h;x 99999\n", (unsigned long)p, sizeof(code));
	fclose(f);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	((void (*)(unsigned long))p)(600000000UL);
	return 0;
}
EOF
cc -O1 -o "$tmp/jit" "$tmp/jit.c" 2>"$tmp/err" &&
	"$MMPROF" record -q -o "$tmp/jit.data" -- "$tmp/jit" >"$tmp/jit.pid" 2>>"$tmp/err"
rc=$?
jit_pid=$(cat "$tmp/jit.pid")
[ -n "$jit_pid" ] && rm -f "/tmp/perf-$jit_pid.map"
test $rc -eq 0 && [ -n "$jit_pid" ]
ok $? "record a JIT whose perf map names its code with ESC and BEL"
[ -s "$tmp/err" ] && diag "$tmp/err"
bad=0
for v in "" --keys --tree --folded; do
	# shellcheck disable=SC2086
	"$MMPROF" report $v "$tmp/jit.data" >"$tmp/out" 2>&1
	if grep -q -e "$esc" -e "$bel" "$tmp/out" || ! grep -q 'jit\\x1b\]0[;:]pwned\\x07\\x1b\[2J' "$tmp/out"; then
		echo "# report $v: raw controls, or the name not shown escaped"
		bad=1
	fi
done
test $bad -eq 0
ok $? "report keys, --tree, --folded show the perf-map name escaped, no raw ESC or BEL"

done_testing
