#!/bin/sh
# t112-record-ops-pattern: work done per run of any benchmark (#16 1).
#   - record --ops-pattern REGEX: each run's output lines (stdout and
#     stderr) that match give <command>.ops, the sum of the first group,
#     per run; --ops-name names the key; a run with no match has no key
#     and a warning;
#   - a bad pattern: one line, exit 2, before the workload runs;
#   - the workload's stderr is read now: it still reaches record's stderr
#     byte for byte, a chatty workload does not stall, a line without
#     newline does not grow record's memory, and the exit status of a
#     failed run (exit 3) is kept;
#   - import --workload-output FILE: a saved benchmark output (a robot
#     result folder's stress-ng file) gives an import the same keys;
#   - the matching is bounded (issue 31): '(x*x*x*x*x*x*y)' against 100,000
#     lines of 1,022 x (16 ms a line in glibc's regexec with groups: half
#     an hour) ends in seconds, a pattern that costs 100 ms a line stops
#     matching after its CPU budget with one warning and no key, nested
#     counted repetitions past 256 copies are refused before the run, and so
#     is a back-reference (one line of 1,022 x against '(x*)(x*)\2\1\2y' ran
#     past 300 s: the budget is checked between lines).

. "$(dirname "$0")/lib.sh"
tap_setup t112

plan 19

per_run() { sqlite3 "$1" "select run, value from metrics_v where key = '$2' order by run"; }

# 1-3: a shell benchmark printing its work on both streams, a different amount per run
echo 0 >"$tmp/n"
cat >"$tmp/bench.sh" <<'EOF'
#!/bin/sh
n=$(($(cat "$1") + 1)); echo $n >"$1"
echo "warmup"
echo "pass 1: $((n * 10)) ops done"
echo "pass 2: $((n * 5)) ops done" >&2
echo "pass x: lots ops done"
EOF
chmod +x "$tmp/bench.sh"
"$MMPROF" record -q -r 2 -o "$tmp/a.data" --ops-pattern '^pass [0-9]+: ([0-9]+) ops done$' \
	-- "$tmp/bench.sh" "$tmp/n" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 0 && test "$(per_run "$tmp/a.data" bench.sh.ops)" = "0|15.0
1|30.0"
ok $? "--ops-pattern: bench.sh.ops per run, the sum of its matching lines on stdout and stderr"
[ $? -eq 0 ] || { echo "# rc=$rc"; diag "$tmp/err"; per_run "$tmp/a.data" bench.sh.ops | diag; }
test "$(grep -c '^pass [0-9]*: [0-9]* ops done$' "$tmp/out")" -eq 2 &&
	test "$(grep -c '^pass 2: [0-9]* ops done$' "$tmp/err")" -eq 2 && ! grep -q '^pass 2' "$tmp/out"
ok $? "the lines still reach the user, each on its own stream"
"$MMPROF" record -q -o "$tmp/b.data" --ops-pattern 'pass 1: ([0-9]+)' --ops-name mybench \
	-- "$tmp/bench.sh" "$tmp/n" >/dev/null 2>"$tmp/err"
test "$(per_run "$tmp/b.data" mybench.ops)" = "0|30.0"
ok $? "--ops-name mybench: the key is mybench.ops"

# 4-5: no match
"$MMPROF" record -q -o "$tmp/c.data" --ops-pattern 'nothing ([0-9]+)' -- sh -c 'echo 1 2 3' \
	>/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 0 && test -z "$(per_run "$tmp/c.data" sh.ops)" &&
	grep -qx "mmprof: warning: run 0: no output line matched --ops-pattern: no sh.ops stored" "$tmp/err"
ok $? "no line matches: no key (not a zero) and one warning, even with -q"
[ $? -eq 0 ] || diag "$tmp/err"
"$MMPROF" record -q -o "$tmp/d.data" --ops-pattern 'done ([0-9]+)' -- sh -c 'echo done 4; exit 7' \
	>/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 3 && test "$(per_run "$tmp/d.data" sh.ops)" = "0|4.0"
ok $? "a failing workload: exit 3 still, its work count kept"

# 6-7: bad patterns, before anything runs
for pat in 'ops ([0-9]+' 'ops [0-9]+'; do
	"$MMPROF" record -q -o "$tmp/e.data" --ops-pattern "$pat" -- touch "$tmp/ran" >"$tmp/out" 2>"$tmp/err"
	echo "rc=$?" >>"$tmp/err"
	cat "$tmp/err" >>"$tmp/errs"
done
test "$(grep -c '^rc=2$' "$tmp/errs")" -eq 2 && test "$(grep -vc '^rc=' "$tmp/errs")" -eq 2 &&
	grep -q "^mmprof: --ops-pattern 'ops (\[0-9\]+': " "$tmp/errs" &&
	grep -q "^mmprof: --ops-pattern 'ops \[0-9\]+': no group" "$tmp/errs"
ok $? "an unbalanced group or no group at all: one line each naming the pattern, exit 2"
[ $? -eq 0 ] || diag "$tmp/errs"
test ! -e "$tmp/ran" && test ! -e "$tmp/e.data"
ok $? "and the workload never ran, no file written"

# 8-9: a chatty workload: 8 MB on each stream, every byte passed through
"$MMPROF" record -q -F 200 -o "$tmp/f.data" -- sh -c \
	'head -c 8000000 /dev/zero | tr "\0" "a" | fold -w 100 & head -c 8000000 /dev/zero | tr "\0" "b" | fold -w 100 >&2; wait' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 0 && test "$(tr -d '\n' <"$tmp/out" | wc -c)" -eq 8000000 &&
	test "$(tr -d '\n' <"$tmp/err" | tr -d b | wc -c)" -eq 0 &&
	test "$(tr -d '\n' <"$tmp/err" | wc -c)" -eq 8000000
ok $? "8 MB on stdout and 8 MB on stderr at once: all of it, each on its stream"
[ $rc -eq 0 ] || { echo "# rc=$rc"; head -c 300 "$tmp/err" | diag; }
# a 64 MB line without a newline on stderr: passed through, not kept
/usr/bin/time -f '%M' -o "$tmp/rss" "$MMPROF" record -q -F 200 -o "$tmp/g.data" -- sh -c \
	'head -c 64000000 /dev/zero | tr "\0" "c" >&2' >/dev/null 2>"$tmp/err"
rc=$?
rss=$(tail -1 "$tmp/rss")
base=$(/usr/bin/time -f '%M' "$MMPROF" record -q -F 200 -o "$tmp/h.data" -- true 2>&1 >/dev/null | tail -1)
test $rc -eq 0 && test "$(wc -c <"$tmp/err")" -eq 64000000 && test "$rss" -lt $((base + 32000))
ok $? "a 64 MB line without newline: passed through, record's RSS $rss KB (an empty run: $base KB)"

# 10-11: stderr is the workload's, unchanged, also when it fails
"$MMPROF" record -q -o "$tmp/i.data" -- sh -c 'printf "partial"; printf "err \033[1mbold\033[0m\n" >&2; exit 4' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
printf 'err \033[1mbold\033[0m\n' >"$tmp/want"
test $rc -eq 3 && test "$(cat "$tmp/out")" = partial && head -1 "$tmp/err" | cmp -s - "$tmp/want"
ok $? "a failing workload's stderr reaches record's stderr byte for byte, and exit 3"
[ $? -eq 0 ] || diag "$tmp/err"
sed -n 2p "$tmp/err" | grep -qx "mmprof: workload exited with status 4 in run 0"
ok $? "followed by record's own line on the run"

# 12-14: an import with the benchmark's saved output
printf '     1.001000000,1234,,page-faults,1000000,100.00,,\n' >"$tmp/ps.log"
cp "$here/tests/golden/benchout/sng015-brief.input" "$tmp/stress-ng"
"$MMPROF" import "$tmp/ps.log" --workload-output "$tmp/stress-ng" -o "$tmp/j.data" 2>"$tmp/err"
rc=$?
sqlite3 "$tmp/j.data" "select key || ' ' || value from metrics_v order by key" >"$tmp/got"
printf '%s\n' 'stress-ng.vm.ops 138427.0' 'stress-ng.vm.ops_per_sec 68669.64' 'stress-ng.vm.pass 1.0' >"$tmp/want"
test $rc -eq 0 && cmp -s "$tmp/want" "$tmp/got"
ok $? "import --workload-output stress-ng: the robot's stress-ng keys in run 0"
[ $? -eq 0 ] || diag "$tmp/err" "$tmp/got"
"$MMPROF" import "$tmp/ps.log" --workload-output "$tmp/stress-ng" --ops-pattern '\] vm +([0-9]+) ' \
	-o "$tmp/k.data" 2>"$tmp/err"
test "$(per_run "$tmp/k.data" stress-ng.ops)" = "0|138427.0"
ok $? "with --ops-pattern: the key is named after the file (stress-ng.ops)"
"$MMPROF" import "$tmp/ps.log" --ops-pattern '(x)' -o "$tmp/l.data" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && test ! -e "$tmp/l.data"
ok $? "--ops-pattern without --workload-output: one line, exit 2"

# 15-18: bounded matching
head -c 1022 /dev/zero | tr '\0' x >"$tmp/x1k" && echo >>"$tmp/x1k"
i=0; while [ $i -lt 17 ]; do cat "$tmp/x1k" "$tmp/x1k" >"$tmp/x2k" && mv "$tmp/x2k" "$tmp/x1k"; i=$((i + 1)); done
head -n 100000 "$tmp/x1k" >"$tmp/xs" 2>/dev/null || true
(ulimit -t 20; exec timeout 120 "$MMPROF" record -q -e cpu-clock --ops-pattern '(x*x*x*x*x*x*y)' \
	-o "$tmp/x.data" -- cat "$tmp/xs") >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 0 && test "$(wc -l <"$tmp/xs")" -eq 100000 && grep -q "no output line matched" "$tmp/err"
ok $? "a backtracking pattern over 100,000 lines of 1,022 x ends, nothing matched (rc $rc)"
head -c 4000 /dev/zero | tr '\0' x >"$tmp/x4k" && echo >>"$tmp/x4k"
i=0; while [ $i -lt 8 ]; do cat "$tmp/x4k" "$tmp/x4k" >"$tmp/x8k" && mv "$tmp/x8k" "$tmp/x4k"; i=$((i + 1)); done
(ulimit -t 60; exec timeout 300 "$MMPROF" import --ops-pattern '((x|xx)*y)' --ops-name slow \
	--workload-output "$tmp/x4k" -o "$tmp/slow.data" - <"$here/tests/fuzz/corpus/perfscript/default-callchain") \
	>/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 0 && grep -q "^mmprof: warning: --ops-pattern took more than 2 s of CPU" "$tmp/err" &&
	test -z "$(per_run "$tmp/slow.data" slow.ops)"
ok $? "a pattern of 100 ms a line: matching stops after its budget, one warning, no key (rc $rc)"
[ $rc -eq 0 ] || diag "$tmp/err"
"$MMPROF" record -q -e cpu-clock --ops-pattern '(x{1,100}){1,100}(y)' -o "$tmp/n.data" -- true 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -q "nest to more than 256 copies" "$tmp/err" &&
	test ! -e "$tmp/n.data"
ok $? "nested counted repetitions past 256 copies: refused in one line (rc $rc)"
"$MMPROF" record -q -e cpu-clock --ops-pattern 'done ([0-9]{1,20}) ops' -o "$tmp/c.data" -- \
	sh -c 'echo done 7 ops' >/dev/null 2>"$tmp/err" &&
	test "$(per_run "$tmp/c.data" sh.ops)" = "0|7.0"
ok $? "a counted repetition within the bound matches as before"
(ulimit -t 20; exec timeout 60 "$MMPROF" import --ops-pattern '(x*)(x*)\2\1\2y' --ops-name br \
	--workload-output "$tmp/xs" -o "$tmp/br.data" - <"$here/tests/fuzz/corpus/perfscript/default-callchain") \
	>/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -q "a back-reference" "$tmp/err" &&
	test ! -e "$tmp/br.data"
ok $? "a back-reference: refused in one line, before any line is matched (rc $rc)"
[ $rc -eq 2 ] || diag "$tmp/err"

done_testing
