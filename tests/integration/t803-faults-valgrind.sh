#!/bin/sh
# t803-faults-valgrind: record, report (every view), diff, export and strip
# run under valgrind memcheck with no error and no definite leak, on a real
# recording (the sanitizer build covers the same paths with ASan/UBSan; this
# covers the ordinary -O2 binary, uninitialised reads included).
# VALGRIND overrides the command (e.g. with --leak-check=full --show-leak-kinds=all).

. "$(dirname "$0")/lib.sh"
: "${VALGRIND:=valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite}"
tap_setup t803

# valgrind cannot run an ASan binary: under SANITIZE=... check the plain
# build of the same tree instead (the Makefile names its folder; made here
# if missing).
if [ -n "${MMPROF_SANITIZE:-}" ]; then
	plain=${MMPROF_PLAIN_BUILD:-$here/build}
	MMPROF=$plain/mmprof
	[ -x "$MMPROF" ] || (unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$here" SANITIZE= BUILD="$plain" "$MMPROF") >"$tmp/make.log" 2>&1 ||
		{ echo "not ok 1 - plain build for valgrind"; diag "$tmp/make.log" >&2; exit 1; }
fi

if ! command -v valgrind >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q valgrind >/dev/null 2>&1
fi

# vg DESCRIPTION ARGS...: exit 0 under memcheck, no report of valgrind's
vg() {
	desc=$1
	shift
	$VALGRIND --log-file="$tmp/vg.log" "$MMPROF" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test $rc -eq 0 && test ! -s "$tmp/vg.log"
	ok $? "valgrind: $desc"
	if [ $rc -ne 0 ] || [ -s "$tmp/vg.log" ]; then
		echo "# rc=$rc"
		head -40 "$tmp/vg.log" "$tmp/err" | sed 's/^/# /'
	fi
}

plan 10

vg "record (fork, callchains, counters)" record -q -F 1000 -e cpu-clock -o "$tmp/a.data" -- \
	sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done'
"$MMPROF" record -q -r 2 -F 1000 -e cpu-clock -o "$tmp/b.data" -- \
	sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' 2>/dev/null
vg "report" report --keys "$tmp/a.data"
vg "report --tree" report --tree "$tmp/a.data"
vg "report --folded" report --folded "$tmp/a.data"
vg "report --json" report --json "$tmp/a.data"
vg "diff" diff "$tmp/a.data" "$tmp/b.data"
# the dropped run's keys are freed with it (they leaked, 8 KB here)
vg "diff --drop-run" diff --drop-run new:1 "$tmp/a.data" "$tmp/b.data"
vg "export --format pprof" export --format pprof -o "$tmp/a.pb.gz" "$tmp/a.data"
vg "strip" strip "$tmp/a.data" -o "$tmp/s.data"
$VALGRIND --log-file="$tmp/vg.log" "$MMPROF" report --keys "$tmp/missing.data" >/dev/null 2>&1
test $? -eq 2 && test ! -s "$tmp/vg.log"
ok $? "valgrind: an error path (missing file) exits 2 cleanly"

done_testing
