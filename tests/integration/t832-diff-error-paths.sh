#!/bin/sh
# t832-diff-error-paths: every error path of `mmprof diff` that the command
# line can reach ends in one line on stderr and exit 2 (0 for --help),
# with no memory error: under the sanitizer build the binary is ASan's
# (any report fails the check), else each run is under valgrind memcheck
# (t803's command).  Issue 31: `diff` of 66 files or more set the side
# count before refusing it, and the clean-up released slots past the
# array (stack-buffer-overflow; 1000 files segfaulted).
# VALGRIND overrides the command.

. "$(dirname "$0")/lib.sh"
tap_setup t832

if [ -n "${MMPROF_SANITIZE:-}" ]; then
	VALGRIND=
else
	: "${VALGRIND:=valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite}"
	if ! command -v valgrind >/dev/null 2>&1; then
		[ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q valgrind >/dev/null 2>&1
	fi
fi

# err_path DESCRIPTION RC PATTERN ARGS...: diff ARGS exits RC with one line
# on stderr matching PATTERN (no line when PATTERN is empty) and no memory
# error report
err_path() {
	desc=$1 want=$2 pat=$3
	shift 3
	: >"$tmp/vg.log"
	# shellcheck disable=SC2086
	timeout 60 $VALGRIND ${VALGRIND:+--log-file="$tmp/vg.log"} "$MMPROF" diff "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test $rc -eq "$want" && test ! -s "$tmp/vg.log" &&
		! grep -q -e 'AddressSanitizer' -e 'runtime error' -e 'LeakSanitizer' "$tmp/err" &&
		{ [ -z "$pat" ] || { test "$(wc -l <"$tmp/err")" -eq 1 && grep -q -e "$pat" "$tmp/err"; }; }
	ok $? "diff $desc: exit $want, ${pat:+one line, }no memory error"
	if [ $rc -ne "$want" ] || [ -s "$tmp/vg.log" ] || [ -n "$pat" ] &&
	   ! grep -q -e "$pat" "$tmp/err"; then
		echo "# rc=$rc"
		head -20 "$tmp/vg.log" "$tmp/err" | sed 's/^/# /'
	fi
}

plan 30

cd "$tmp" || exit 2
"$MMPROF" record -q -F 1000 -e cpu-clock -o a.data -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' 2>rec.err &&
"$MMPROF" record -q -r 2 -F 1000 -e cpu-clock -o b.data -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' 2>>rec.err &&
"$MMPROF" record -q -F 1000 -e task-clock -o t.data -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' 2>>rec.err
ok $? "three recordings (cpu-clock, cpu-clock 2 runs, task-clock)"
"$MMPROF" record -q -F 1000 -e cpu-clock -o f.data -- sh -c 'exit 3' 2>>rec.err
test $? -eq 3 && test -s f.data
ok $? "a recording whose workload failed"
printf 'not a data file\n' >text.data

# the crash of issue 31: more sides than the array holds
i=0 many=
while [ $i -lt 66 ]; do many="$many a.data"; i=$((i + 1)); done
# shellcheck disable=SC2086
err_path "of 66 files" 2 "66 sides: at most a base and 64 compared columns" $many
i=0 many=
while [ $i -lt 1000 ]; do many="$many a.data"; i=$((i + 1)); done
# shellcheck disable=SC2086
err_path "of 1000 files" 2 "1000 sides: at most" $many
i=0 many=a.data
while [ $i -lt 65 ]; do many="$many -- a.data"; i=$((i + 1)); done
# shellcheck disable=SC2086
err_path "of 66 sides between '--'" 2 "66 sides: at most" $many

err_path "--help" 0 "" --help
err_path "of an unknown option" 2 "" --no-such-option a.data b.data
err_path "of one file" 2 "need BASE.data NEW.data" a.data
err_path "with an empty side" 2 "each side between '--' needs" a.data -- -- b.data
err_path "--format unknown" 2 "unknown format 'yaml'" -f yaml a.data b.data
err_path "--fail-on malformed" 2 "" --fail-on 'perf-profile.self.cpu-clock.x >' a.data b.data
err_path "--gate-file missing" 2 "cannot open gate file" --gate-file nowhere a.data b.data
err_path "--gate-file /dev/zero" 2 "gate file '/dev/zero'" --gate-file /dev/zero a.data b.data
err_path "--gate-file a folder" 2 "gate file '.'" --gate-file . a.data b.data
head -c 70000 /dev/zero | tr '\0' 'x' >long.gates
err_path "--gate-file of a 70 kB line" 2 "gate file 'long.gates': line 1 is longer than" \
	--gate-file long.gates a.data b.data
err_path "--gate-column unknown" 2 "no such compared column" --gate-column new9 a.data b.data
err_path "of a missing file" 2 "missing.data" a.data missing.data
err_path "of a text file" 2 "text.data" a.data text.data
err_path "--drop-run of no such run" 2 "" --drop-run new:7 a.data b.data
err_path "of a failed workload" 2 "failed in every run" a.data f.data
err_path "of different events" 2 "DIFFERENT SAMPLING EVENTS" a.data t.data
err_path "of a gate that matches nothing" 2 "matches no key" --fail-on 'nosuch.key > 1' a.data b.data
err_path "--alpha nan" 2 "--alpha" --alpha nan a.data b.data
err_path "--alpha 2" 2 "--alpha" --alpha 2 a.data b.data
err_path "--min-points -1" 2 "--min-points" --min-points -1 a.data b.data
err_path "--threshold-pct inf" 2 "--threshold-pct" --threshold-pct inf a.data b.data
err_path "--html into a missing folder" 2 "nowhere/r.html" --html nowhere/r.html a.data b.data
err_path "--junit into a missing folder" 2 "nowhere/j.xml" --junit nowhere/j.xml a.data b.data
err_path "--summary into a missing folder" 2 "nowhere/s.md" --summary nowhere/s.md a.data b.data
long=$(head -c 4090 /dev/zero | tr '\0' 'x')
err_path "--html of several columns, too long a name" 2 "too long a name" \
	--html "$long.html" a.data b.data b.data

done_testing
