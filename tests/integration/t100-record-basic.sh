#!/bin/sh
# t100-record-basic: `mmprof record -- CMD` on real workloads writes a
# .data file with one run, the workload's status and rusage, samples, the
# perf-stat counters (supported ones counted, unsupported ones flagged),
# interval readings that add up to the totals, the workload's metric lines
# (while its stdout still reaches ours), and the machine metadata.

. "$(dirname "$0")/lib.sh"
tap_setup t100

q() { sqlite3 "$tmp/x.data" "$1"; }

plan 20

# 1-3: a kernel-heavy command: exit 0, file written, one summary line.
# Its work is fixed and long enough for several -I readings on a quiet
# machine too (400,000 blocks took 0.09 s there: one reading of 100 ms);
# a loaded one only makes it longer.
"$MMPROF" record -o "$tmp/x.data" -I 50 -- \
	dd if=/dev/zero of=/dev/null bs=4k count=2000000 >"$tmp/out" 2>"$tmp/err"
rc=$?
ok $rc "record -- dd exits 0"
[ $rc -eq 0 ] || diag "$tmp/err"
test -s "$tmp/x.data"
ok $? "the file is written"
grep -q "^mmprof: 1 run, [0-9]* samples, 0 lost, [0-9]* throttled; wrote '$tmp/x.data'" "$tmp/err"
ok $? "one summary line with runs, samples, lost, throttled and the path"

# 4-6: the run: status, rusage, samples.
test "$(q 'select count(*) from runs')" = 1
ok $? "one run"
test "$(q 'select exit_code || "/" || term_signal from runs')" = "0/0"
ok $? "exit code 0, no signal"
test "$(q 'select (utime_us + stime_us) > 0 and minflt > 0 and maxrss_kb > 0 and wall_ns > 0 and samples > 50 from runs')" = 1
ok $? "rusage, wall time and samples are stored"

# 7-10: counters.
test "$(q "select supported = 1 and value > 0 from counters_v where name = 'page-faults'")" = 1
ok $? "page-faults supported and > 0"
test "$(q "select count(*) from counters_v where name in ('task-clock','cpu-clock','context-switches','cpu-migrations','page-faults','minor-faults','major-faults') and supported = 1")" = 7
ok $? "the seven software counters are supported"
# cpu-cycles: counted where a core PMU exists, else flagged (this VM has none)
got=$(q "select supported || '|' || (value > 0) || '|' || enabled from counters_v where name = 'cpu-cycles'")
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	test "${got%|*}" = "1|1"
	ok $? "cpu-cycles counted with a PMU (got '$got')"
else
	test "$got" = "0|0|0"
	ok $? "cpu-cycles flagged unsupported, not zero, without a PMU (got '$got')"
fi
test "$(q "select count(*) from counters_v where supported = 0 and (value != 0 or enabled != 0)")" = 0
ok $? "no unsupported counter carries numbers"

# 11-12: intervals: several readings, summing exactly to the totals.
test "$(q "select count(*) >= 3 from intervals_v where name = 'task-clock'")" = 1
ok $? "-I 50 gives several interval readings"
test "$(q "select count(*) from counters_v c where supported and value != (select sum(value) from intervals_v i where i.name = c.name and i.run = c.run)")" = 0
ok $? "intervals sum to the totals for every counter"

# 13-16: metadata.
test "$(q "select value from meta where key = 'record_mode'")" = fork
ok $? "record_mode fork"
q "select value from meta where key = 'cmdline'" | grep -q "^mmprof record -o .* -- dd if=/dev/zero"
ok $? "the command line is stored"
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled)
test "$(q "select value from meta where key = 'thp_enabled'")" = "$thp"
ok $? "thp_enabled is the bracketed choice ($thp)"
test "$(q "select count(*) from meta where key in ('kernel_release','hostname','cpu_model','nr_cpus_online','start_time','events_used','sample_freq','perf_event_paranoid','kptr_restrict','mmprof_version')")" = 10
ok $? "kernel, host, CPU, start time, events, frequency and sysctls are stored"

# 17-20: a workload's metric lines are passed through and captured.
"$MMPROF" record -q -o "$tmp/x.data" -F 999 -- "$wl/page-fault" --seconds 0.3 >"$tmp/out" 2>"$tmp/err"
rc=$?
ok $rc "record -- page-fault exits 0"
grep -q '^page-fault.ops_per_sec: [0-9]' "$tmp/out"
ok $? "the workload's stdout reaches ours"
test "$(q "select count(*) from metrics_v where key = 'page-fault.ops_per_sec' and value > 0")" = 1
ok $? "its metric lines become metrics of the run"
test ! -s "$tmp/err"
ok $? "-q: nothing on stderr"
[ -s "$tmp/err" ] && diag "$tmp/err"

done_testing
