#!/bin/sh
# t802-faults-load: system-wide recording at 20 kHz (with --sched when the
# build has it) while stress-ng keeps every CPU busy: memory stays bounded,
# losses are counted, the file is valid.  CI runs LOAD_SECONDS=8; the
# manual run in Documentation/robustness.md used LOAD_SECONDS=60.
# Peak RSS: the kernel's VmHWM of mmprof, sampled every 0.2 s from /proc.

. "$(dirname "$0")/lib.sh"
: "${LOAD_SECONDS:=8}"
# ASan's shadow memory and quarantine come on top under SANITIZE=...
if [ -n "${MMPROF_SANITIZE:-}" ]; then : "${LOAD_MAX_RSS_MB:=1500}"; else : "${LOAD_MAX_RSS_MB:=400}"; fi
tap_setup t802
st=
cleanup_hook() { [ -n "$st" ] && kill $st 2>/dev/null; }

if ! command -v stress-ng >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q stress-ng >/dev/null 2>&1
	fi
fi
if ! command -v stress-ng >/dev/null 2>&1; then
	echo "1..0 # SKIP stress-ng missing and cannot be installed (apt-get install stress-ng)"
	exit 0
fi

plan 6

sched=
"$MMPROF" record --help 2>&1 | grep -q -- '--sched' && sched=--sched
stress-ng --cpu 0 --vm 1 --vm-bytes 64M --switch 1 --timeout $((LOAD_SECONDS + 10))s -q >/dev/null 2>&1 &
st=$!
sleep 1
"$MMPROF" record -a -F 20000 $sched --duration "$LOAD_SECONDS" -o "$tmp/load.data" >"$tmp/out" 2>"$tmp/err" &
mp=$!
hwm=0
while kill -0 $mp 2>/dev/null; do
	v=$(awk '/^VmHWM:/ { print $2 }' /proc/$mp/status 2>/dev/null)
	[ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
	sleep 0.2
done
wait $mp
rc=$?
kill $st 2>/dev/null
wait $st 2>/dev/null
st=
ok $rc "-a -F 20000 ${sched:+--sched }for $LOAD_SECONDS s under stress-ng: exit 0"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/err"
test "$hwm" -gt 0 && test "$hwm" -lt $((LOAD_MAX_RSS_MB * 1024))
ok $? "peak RSS $((hwm / 1024)) MiB < $LOAD_MAX_RSS_MB MiB"
row=$(sqlite3 "$tmp/load.data" 'select samples || " " || lost || " " || throttled from runs' 2>&1)
case $row in
[0-9]*) set -- $row ;;
*) echo "# sqlite3: $row"; set -- 0 x x ;;
esac
test "${1:-0}" -gt 1000
ok $? "the file is valid and holds the samples (${1:-?} samples, ${2:-?} lost, ${3:-?} throttled)"
grep -q "samples, ${2:-x} lost" "$tmp/err"
ok $? "the losses stored are the losses printed"
"$MMPROF" report --keys "$tmp/load.data" >"$tmp/rep" 2>"$tmp/rerr"
rrc=$?
test $rrc -eq 0 && grep -q '^perf-' "$tmp/rep"
ok $? "report reads it"
[ $rrc -eq 0 ] || { echo "# rc=$rrc"; sed 's/^/# /' "$tmp/rerr"; head -3 "$tmp/rep" | sed 's/^/# /'; }
test "$(sqlite3 "$tmp/load.data" 'pragma integrity_check')" = ok
ok $? "sqlite integrity_check: ok"
echo "# load: $(cat "$tmp/err" | tr '\n' ' ')"

done_testing
