#!/usr/bin/env bash
# bench.sh: `make bench` — mmprof measured side by side with perf (issue 8).
#
# Every comparison runs both tools in the same invocation, interleaved
# (A B A B ...), BENCH_REPS times; the table shows medians with min-max and
# ratios, because these machines are shared and noisy.  Sections:
#   1. overhead: page-fault throughput unprofiled, under the kernel's floor
#      (build/bench/floor: same events, buffers drained unread), under
#      `perf record -g` and under `mmprof record`, per process and -a
#   2. lost samples at the same settings
#   3. time to answer: workload end -> children table on screen
#   4. file size of the same runs
#   5. ingest: samples/s through record's aggregation path (one core)
#   6. report and diff on synthetic 10 runs x 100 000 stacks per side
#   7. scaling of report time and memory with stacks and runs
#   8. heavy system-wide load: stress-ng's vm, pthread and mmap stressors
#      under -a -F 20000, 8 s and 20 s: samples, file size, record and
#      report memory (issue 13), perf and mmprof in BENCH_PAIRS pairs, and
#      the samples per second of each run's own window, pair by pair,
#      beside perf against perf in the same sequence (issue 30 point 2)
#   9. the worst case for a stack trie: tests/bench/rand-recurse.c, random
#      recursion, at -F 20000 for 40 s (issue 14 item 11), in pairs too
# and then the targets (issue 30 point 4): each with its measured value
# and "met", "not met" or "machine too noisy" (an interval that holds the
# target's line, from the pairs' spread).
#  10. the results store: mmprof push's rate into SQLite and PostgreSQL,
#      one client and 16, and the store's size per push (issue 33;
#      src/scripts/bench-store.sh)
#  11. history: one key's series on a store of 10,000 runs x 500 keys,
#      and the change-point scan of 200 keys x 1,000 commits (issue 33;
#      src/scripts/bench-history.sh)
# Prints the table and writes it to Documentation/performance.md (with the
# machine, the date and the command).  The verdicts are the bench's, not a
# test's: `make check` carries no timing assertion.
#
# Environment: BUILD (build), BENCH_QUICK=1 (smoke run: 1 rep, short runs,
# small files; writes $BUILD/bench/performance.md instead of the doc),
# BENCH_REPS (5), BENCH_PAIRS (3: perf/mmprof pairs of sections 8 and 9),
# BENCH_SECONDS (0.5), BENCH_HEAVY_SECS (8 20: section 8's run lengths),
# BENCH_SECTIONS (all; or some of: overhead ingest synth heavy worst store
# history, the others left out and the page written to
# $BUILD/bench/performance.md), BENCH_DOC (output path), BENCH_TMP.
set -uo pipefail
export LC_ALL=C
build=${BUILD:-build}
quick=${BENCH_QUICK:-0}
if [ "$quick" = 1 ]; then
	reps=${BENCH_REPS:-1} secs=${BENCH_SECONDS:-0.4} stacks=10000 runs=2
	ingest_n=1e6 doc=${BENCH_DOC:-$build/bench/performance.md} long_secs=1
	heavy_secs="2" worst_secs=2 pairs=${BENCH_PAIRS:-1}
else
	reps=${BENCH_REPS:-5} secs=${BENCH_SECONDS:-0.5} stacks=100000 runs=10
	ingest_n=1e7 doc=${BENCH_DOC:-Documentation/performance.md} long_secs=3
	heavy_secs="8 20" worst_secs=40 pairs=${BENCH_PAIRS:-3}
fi
heavy_secs=${BENCH_HEAVY_SECS:-$heavy_secs}
sections=${BENCH_SECTIONS:-all}
[ "$sections" = all ] || doc=${BENCH_DOC:-$build/bench/performance.md}
want() { [ "$sections" = all ] || [[ " $sections " == *" $1 "* ]]; }
freqs="4000 20000"
pages=256		# ring buffer pages per CPU, the same for every tool (1 MiB)
wlargs=(-s "$secs" --size 16M)

command -v perf >/dev/null || { echo "mmprof bench: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
command -v stress-ng >/dev/null || { echo "mmprof bench: stress-ng is not installed (apt-get install stress-ng)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "mmprof bench: sqlite3 is not installed (apt-get install sqlite3)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "mmprof bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
for f in mmprof workloads/page-fault bench/floor bench/ingest bench/gen-profile bench/rand-recurse; do
	[ -x "$build/$f" ] || { echo "mmprof bench: '$build/$f' is missing; run 'make bench'" >&2; exit 2; }
done
tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/mmprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# private copies: a rebuild in the tree during the run must not swap binaries
mkdir "$tmp/bin"
cp "$build/mmprof" "$build/workloads/page-fault" "$build/bench/floor" "$build/bench/ingest" \
	"$build/bench/gen-profile" "$build/bench/rand-recurse" "$tmp/bin/"
mmprof=$tmp/bin/mmprof wl=$tmp/bin/page-fault floor=$tmp/bin/floor
ingest=$tmp/bin/ingest gen=$tmp/bin/gen-profile recurse=$tmp/bin/rand-recurse
res=$tmp/results.tsv	# section <tab> row <tab> tool <tab> metric <tab> value <tab> repetition
: >"$res"
nostat=
"$mmprof" record --help 2>&1 | grep -q -- '--no-stat' && nostat=1
t_start=$(date +%s)

# the repetition goes last: paired ratios compare runs of the same one
put() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" "${rep:-0}" >>"$res"; }
now() { date +%s.%N; }
log() { printf '  %s\n' "$*" >&2; }

# The workload, wrapped so that its end time and CPU time are known: bash
# writes the time right after it exits, `times` its children's CPU.
wrap() {	# seconds -> the wrapped command in the array wrapped
	wrapped=(bash -c '"$0" "$@"; rc=$?; date +%s.%N >"$BENCH_END"; times >"$BENCH_TIMES"; exit $rc'
		 "$wl" -s "$1" --size 16M)
}
wrap "$secs"
export BENCH_END=$tmp/end BENCH_TIMES=$tmp/times

# ops/s and ops per CPU-second of the workload from its output and `times`.
workload_numbers() {	# section row tool stdout-file
	local ops rate cpu
	rate=$(awk '/^page-fault.ops_per_sec:/ {print $2}' "$4")
	ops=$(awk '/^page-fault.ops:/ {print $2}' "$4")
	cpu=$(awk 'NR==2 { n=split($0,a," "); s=0; for(i=1;i<=n;i++){ split(a[i],b,"m"); sub("s","",b[2]); s+=b[1]*60+b[2] } print s }' "$BENCH_TIMES" 2>/dev/null)
	[ -n "$rate" ] && put "$1" "$2" "$3" ops "$rate"
	[ -n "$ops" ] && [ -n "$cpu" ] && awk -v o="$ops" -v c="$cpu" 'BEGIN{exit !(c>0)}' &&
		put "$1" "$2" "$3" cpuops "$(awk -v o="$ops" -v c="$cpu" 'BEGIN{printf "%.1f", o/c}')"
}

# section row perf.data: samples and lost.  Lost: the samples and side-band
# records each event lost (the LOST_SAMPLES lines under "EVENT stats:", perf
# 6.0 and later), as mmprof's LOST records count every record its ring
# buffers lost; not the aggregated lines, which count LOST records.  An
# older perf has no per-event lines: then the aggregated ones.
perf_counts() {
	perf report --stats -i "$3" 2>/dev/null >"$tmp/stats"
	put "$1" "$2" perf lost "$(awk '/ stats:$/ && !/^Aggregated/ { ev = 1 } /LOST(_SAMPLES)? events:/ { if (ev) e += $3; else a += $3 }
		END { print (ev ? e : a) + 0 }' "$tmp/stats")"
	put "$1" "$2" perf samples "$(awk '/SAMPLE events:/ { print $3; exit }' "$tmp/stats")"
	put "$1" "$2" perf throttled "$(awk '/THROTTLE events:/ && !t { t = $3 } END { print t + 0 }' "$tmp/stats")"
	# the samples the sampling event lost, without the side band's (dummy's) records
	put "$1" "$2" perf slost "$(awk '/ stats:$/ { ev = !/^Aggregated/ && !/^dummy/ }
		ev && /LOST(_SAMPLES)? events:/ { e += $3 } END { print e + 0 }' "$tmp/stats")"
}
mmprof_counts() {	# section row stderr of mmprof record
	put "$1" "$2" mmprof lost "$(sed -n 's/.* samples, \([0-9]*\) lost.*/\1/p' "$3" | tail -1)"
	put "$1" "$2" mmprof samples "$(sed -n 's/.* \([0-9]*\) samples, [0-9]* lost.*/\1/p' "$3" | tail -1)"
	put "$1" "$2" mmprof throttled "$(sed -n 's/.* lost, \([0-9]*\) throttled.*/\1/p' "$3" | tail -1)"
}
floor_counts() {	# section row stderr of floor
	put "$1" "$2" floor lost "$(awk '/^floor:/ {print $5}' "$3")"
	put "$1" "$2" floor samples "$(awk '/^floor:/ {print $3}' "$3")"
}

# ---- 1-4: per-process runs ------------------------------------------------
one_fork() {	# freq tool [row]
	local f=$1 tool=$2 row=${3:-"-F $1"} out=$tmp/out err=$tmp/err t1 te
	rm -f "$BENCH_END" "$BENCH_TIMES"
	case $tool in
	none)	"${wrapped[@]}" >"$out" 2>"$err" ;;
	floor)	"$floor" -F "$f" -m $pages -- "${wrapped[@]}" >"$out" 2>"$err"
		floor_counts fork "$row" "$err" ;;
	floor+stat) "$floor" -F "$f" -m $pages --counters -- "${wrapped[@]}" >"$out" 2>"$err" ;;
	perf)	perf record -q -g -e cpu-clock -F "$f" -m $pages -o "$tmp/perf.data" -- \
			"${wrapped[@]}" >"$out" 2>"$err"
		/usr/bin/time -f '%U %S' -o "$tmp/rt" \
			perf report --children --stdio -i "$tmp/perf.data" >"$tmp/answer" 2>/dev/null
		t1=$(now)
		te=$(cat "$BENCH_END" 2>/dev/null)
		[ -n "$te" ] && put fork "$row" "$tool" answer "$(awk -v a="$t1" -v e="$te" 'BEGIN{printf "%.3f", a-e}')"
		put fork "$row" "$tool" reportcpu "$(awk '{printf "%.3f", $1+$2}' "$tmp/rt")"
		put fork "$row" "$tool" size "$(stat -c %s "$tmp/perf.data")"
		perf_counts fork "$row" "$tmp/perf.data" ;;
	mmprof|mmprof-nostat)
		local extra=()
		[ "$tool" = mmprof-nostat ] && extra=(--no-stat)
		"$mmprof" record "${extra[@]}" -e cpu-clock -F "$f" -m $pages -o "$tmp/m.data" -- \
			"${wrapped[@]}" >"$out" 2>"$err"
		/usr/bin/time -f '%U %S' -o "$tmp/rt" \
			"$mmprof" report --tree "$tmp/m.data" >"$tmp/answer" 2>/dev/null
		t1=$(now)
		te=$(cat "$BENCH_END" 2>/dev/null)
		[ -n "$te" ] && put fork "$row" "$tool" answer "$(awk -v a="$t1" -v e="$te" 'BEGIN{printf "%.3f", a-e}')"
		put fork "$row" "$tool" reportcpu "$(awk '{printf "%.3f", $1+$2}' "$tmp/rt")"
		put fork "$row" "$tool" size "$(stat -c %s "$tmp/m.data")"
		[ "$tool" = mmprof ] && mmprof_counts fork "$row" "$err" ;;
	esac
	workload_numbers fork "$row" "$tool" "$out"
}

# ---- 1-2: system-wide (-a) runs, the workload beside the profiler ---------
one_system() {	# freq tool
	local f=$1 tool=$2 row="-a -F $1" out=$tmp/out err=$tmp/err pid=
	local dur
	dur=$(awk -v s="$secs" 'BEGIN{print s + 1.0}')
	rm -f "$BENCH_END" "$BENCH_TIMES"
	case $tool in
	floor)	"$floor" -F "$f" -m $pages -a "$dur" 2>"$err" & pid=$! ;;
	perf)	perf record -q -a -g -e cpu-clock -F "$f" -m $pages -o "$tmp/perf.data" -- \
			sleep "$dur" >/dev/null 2>"$err" & pid=$! ;;
	mmprof)	"$mmprof" record -a --duration "$dur" -e cpu-clock -F "$f" -m $pages \
			-o "$tmp/m.data" 2>"$err" & pid=$! ;;
	esac
	[ -n "$pid" ] && sleep 0.4
	"${wrapped[@]}" >"$out" 2>/dev/null
	[ -n "$pid" ] && wait "$pid"
	case $tool in
	floor)	floor_counts system "$row" "$err" ;;
	perf)	perf_counts system "$row" "$tmp/perf.data" ;;
	mmprof)	mmprof_counts system "$row" "$err" ;;
	esac
	workload_numbers system "$row" "$tool" "$out"
}

fork_tools="none floor floor+stat perf mmprof${nostat:+ mmprof-nostat}"
system_tools="none floor perf mmprof"

# The overhead targets' paired ratios (tool / floor within a repetition,
# per CPU-second per process, wall clock -a): "geometric mean %, the 95 %
# interval's low and high ends, n, sd of the log ratios"; nothing below two.
ostats() {	# section row metric toolA toolB
	awk -F'\t' -v s="$1" -v r="$2" -v m="$3" -v a="$4" -v b="$5" '
		$1 == s && $2 == r && $4 == m && ($3 == a || $3 == b) { v[$3, $6] = $5; reps[$6] = 1 }
		END { for (k in reps) if (((a, k) in v) && ((b, k) in v) && v[a, k] > 0 && v[b, k] > 0)
			print log(v[a, k] / v[b, k]) }' "$res" |
	awk '{ x[++n] = $1; t += $1 }
		END { if (n < 2) exit
		      m = t / n; for (i = 1; i <= n; i++) q += (x[i] - m) ^ 2; sd = sqrt(q / (n - 1))
		      df = n - 1; z = 1.96	# Student t, 97.5 %: Cornish-Fisher from z (df 4: 2.73 for 2.78)
		      tq = z + (z^3 + z) / (4 * df) + (5 * z^5 + 16 * z^3 + 3 * z) / (96 * df^2)
		      h = tq * sd / sqrt(n)
		      printf "%.1f %.1f %.1f %d %.4f\n", 100 * exp(m), 100 * exp(m - h), 100 * exp(m + h), n, sd }'
}
# The series the repetitions are counted for: mmprof's and perf's ratio to the floor.
overhead_series() {
	local f
	for f in $freqs; do
		for t in mmprof perf; do
			echo "fork|-F $f|cpuops|$t"
			echo "system|-a -F $f|ops|$t"
		done
	done
}
# How many repetitions the spread asks for: each series' interval must hold
# the 99 % line on one side or be a point wide (1 % either way); the count
# that would give that at the sd seen so far, the largest over the series.
overhead_needed() {
	local sec row met t st m lo hi n sd need=0 k
	while IFS='|' read -r sec row met t; do
		st=$(ostats "$sec" "$row" "$met" "$t" floor)
		[ -z "$st" ] && { need=999; continue; }
		read -r m lo hi n sd <<<"$st"
		# decided: the interval on one side of the line, or a point wide
		k=$(awk -v m="$m" -v lo="$lo" -v hi="$hi" -v sd="$sd" -v n="$n" 'BEGIN {
			if (lo >= 99 || hi < 99 || hi - lo <= 2) { print 0; exit }
			d = log(m / 99); if (d < 0) d = -d
			if (d < 0.01) d = 0.01; k = (2.0 * sd / d) ^ 2; if (k < n + 1) k = n + 1
			print (k > 9999) ? 9999 : int(k) + 1 }')
		[ "$k" -gt "$need" ] && need=$k
	done < <(overhead_series)
	echo "$need"
}

overhead_rep() {	# [all]: with the long runs and every tool
	local f ft=$fork_tools
	[ "${1:-}" = all ] || ft="none floor perf mmprof"
	for f in $freqs; do
		log "rep $rep/$reps, -F $f: per process ($ft)"
		for tool in $ft; do one_fork "$f" "$tool"; done
		log "rep $rep/$reps, -F $f: -a ($system_tools)"
		for tool in $system_tools; do one_system "$f" "$tool"; done
	done
	[ "${1:-}" = all ] || return 0
	# a longer run for file size and time to answer, where samples pile up
	log "rep $rep/$reps, -F 20000, $long_secs s: perf, mmprof"
	wrap "$long_secs"
	for tool in perf mmprof; do one_fork 20000 "$tool" "long"; done
	wrap "$secs"
}

# BENCH_REPS full repetitions, then repetitions of the overhead runs alone
# until the spread says the overhead targets are decided (overhead_needed)
# or BENCH_MAX_REPS; past what the spread asks the machine is too noisy to
# show a point, and the targets say so with the count it would take.
max_reps=${BENCH_MAX_REPS:-$([ "$quick" = 1 ] && echo "$reps" || echo 20)}
[ "$max_reps" -lt "$reps" ] && max_reps=$reps
overhead_reps=0 overhead_need=0
if want overhead; then
	log "mmprof bench: $reps repetition(s) (up to $max_reps for overhead), page-fault ${wlargs[*]}, -F $freqs, -m $pages"
	for rep in $(seq 1 "$reps"); do overhead_rep all; done
	rep=$reps
	while :; do
		overhead_need=$(overhead_needed)
		log "overhead: $rep repetition(s); the spread asks for $overhead_need"
		[ "$rep" -ge "$overhead_need" ] || [ "$rep" -ge "$max_reps" ] || [ "$overhead_need" -gt "$max_reps" ] && break
		rep=$((rep + 1))
		reps=$rep overhead_rep
	done
	overhead_reps=$rep
fi
# ---- 5: ingest on one core --------------------------------------------------
want ingest && log "ingest: replayed samples through the aggregation path"
want ingest && for rep in $(seq 1 $(( reps < 3 ? reps : 3 ))); do
	for st in 2000 100000; do
		"$ingest" --samples "$ingest_n" --stacks $st >"$tmp/ing" 2>&1 || continue
		read -r _ _ n _ _ _ _ _ cpu _ wall _ msps _ rss <"$tmp/ing"
		put ingest "$st stacks" mmprof msps "$msps"
		put ingest "$st stacks" mmprof cpu "$cpu"
		put ingest "$st stacks" mmprof wall "$wall"
		put ingest "$st stacks" mmprof rss "$rss"
	done
done

# ---- 6-7: report and diff on synthetic files -------------------------------
timed() {	# section row tool -- command...: wall, cpu, peak RSS
	local sec=$1 row=$2 tool=$3
	shift 4
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/tv" "$@" >/dev/null 2>"$tmp/terr" ||
		{ log "failed: $* ($(head -1 "$tmp/terr"))"; return; }
	read -r w u s m <"$tmp/tv"
	put "$sec" "$row" "$tool" wall "$w"
	put "$sec" "$row" "$tool" cpu "$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')"
	put "$sec" "$row" "$tool" rss "$((m / 1024))"
}
if want synth; then
log "synthetic files: $runs runs x $stacks stacks per side"
"$gen" -o "$tmp/base.data" --runs $runs --stacks $stacks 2>/dev/null &&
"$gen" -o "$tmp/new.data" --runs $runs --stacks $stacks --side 1 2>/dev/null || {
	echo "mmprof bench: gen-profile failed" >&2; exit 2; }
put size-synth "$runs x $stacks" mmprof size "$(stat -c %s "$tmp/base.data")"
for rep in $(seq 1 $(( reps < 3 ? reps : 3 ))); do
	timed synth "report (keys)" mmprof -- "$mmprof" report --keys "$tmp/base.data"
	timed synth "report --tree" mmprof -- "$mmprof" report --tree "$tmp/base.data"
	timed synth "diff" mmprof -- "$mmprof" diff "$tmp/base.data" "$tmp/new.data"
	timed synth "diff -g" mmprof -- "$mmprof" diff -g "$tmp/base.data" "$tmp/new.data"
done

log "scaling: report time and memory vs stacks and runs"
if [ "$quick" = 1 ]; then scale="1:1000 1:10000 4:10000"; else scale="1:10000 1:100000 1:200000 10:10000 10:100000 20:100000"; fi
for rs in $scale; do
	r=${rs%%:*} st=${rs##*:}
	"$gen" -o "$tmp/s.data" --runs "$r" --stacks "$st" 2>"$tmp/gen" || continue
	nodes=$(sed -n 's/.* \([0-9]*\) trie nodes.*/\1/p' "$tmp/gen")
	row="$r runs x $st stacks ($nodes nodes, $(( $(stat -c %s "$tmp/s.data") / 1048576 )) MB)"
	timed scale "$row" report -- "$mmprof" report --keys "$tmp/s.data"
	timed scale "$row" diff -- "$mmprof" diff "$tmp/s.data" "$tmp/s.data"
done
for n in 1e6 1e7; do
	for st in 2000 200000; do
		[ "$quick" = 1 ] && [ "$n" = 1e7 ] && continue
		"$ingest" --samples "$n" --stacks $st >"$tmp/ing" 2>&1 || continue
		read -r _ _ _ _ _ _ _ _ cpu _ wall _ msps _ rss <"$tmp/ing"
		put scale-ingest "$n samples, $st stacks" record cpu "$cpu"
		put scale-ingest "$n samples, $st stacks" record msps "$msps"
		put scale-ingest "$n samples, $st stacks" record rss "$((rss / 1024))"
	done
done
fi

# ---- 8-9: heavy load and the worst case, once each (minutes of samples) ----
# A recorder's peak RSS and a reader's wall time and RSS, beside perf's.
recorded() {	# section row tool data-file stderr-of-record rss-file
	put "$1" "$2" "$3" size "$(stat -c %s "$4" 2>/dev/null)"
	put "$1" "$2" "$3" recrss "$(( $(cat "$6" 2>/dev/null || echo 0) / 1024 ))"
	case $3 in
	perf)	perf_counts "$1" "$2" "$4" ;;
	mmprof)	mmprof_counts "$1" "$2" "$5"
		# the trie's bound for distinct chains (stackagg.h): how many samples it cut
		put "$1" "$2" mmprof cut "$(sed -n 's/^mmprof: warning: \([0-9]*\) samples ([0-9.]*%) kept only their innermost frame.*/\1/p' \
			"$5" | tail -1 | awk '{ print $1 + 0 } END { if (!NR) print 0 }')" ;;
	esac
}
stress=(stress-ng --vm 1 --vm-bytes 128M --pthread 1 --mmap 1 --mmap-bytes 64M -q)
# The sampling window of a heavy run, from its first sample to its last by
# the samples' own times (perf.data's header, mmprof's meta
# sample_window_ns), and the samples per second of it.  Each recorder's
# window starts when it enables its events and ends when it notices
# stress-ng's exit, a reader's wait for a CPU later: raw counts compare
# windows of different lengths, rates per second of each run's own window
# do not.  (Not the events' enabled time: perf.data does not keep it.)
heavy_window() {	# row tool file
	local w n l
	case $2 in
	perf)	w=$(perf report --header-only -i "$3" 2>/dev/null | awk -F': ' '
			/time of first sample/ { f = $2 } /time of last sample/ { l = $2 }
			END { if (l > f) printf "%.6f", l - f }') ;;
	mmprof)	w=$(sqlite3 "$3" "SELECT value / 1e9 FROM meta WHERE key = 'sample_window_ns'" 2>/dev/null) ;;
	esac
	[ -n "$w" ] || return 0
	put heavy "$1" "$2" window "$w"
	n=$(awk -F'\t' -v r="$1" -v t="$2" -v k="${rep:-0}" '$1 == "heavy" && $2 == r && $3 == t &&
		$4 == "samples" && $6 == k { print $5 }' "$res" | tail -1)
	# perf: its sampling event's lost samples; mmprof's lost counts every
	# record its buffers lost (0 in these runs)
	l=$(awk -F'\t' -v r="$1" -v t="$2" -v k="${rep:-0}" -v m="$([ "$2" = perf ] && echo slost || echo lost)" \
		'$1 == "heavy" && $2 == r && $3 == t && $4 == m && $6 == k { print $5 }' "$res" | tail -1)
	[ -n "$n" ] && put heavy "$1" "$2" rate "$(awk -v n="$n" -v w="$w" 'BEGIN { printf "%.1f", n / w }')"
	# what the kernel took: kept and lost (perf loses where mmprof does not)
	[ -n "$n" ] && put heavy "$1" "$2" taken "$(awk -v n="$n" -v l="${l:-0}" -v w="$w" 'BEGIN { printf "%.1f", (n + l) / w }')"
}
heavy_run() {	# tool seconds [noread]: -a -F 20000 -- stress-ng for that long
	local row="$2 s" out
	put heavy "$row" "$1" load "$(cut -d' ' -f1 /proc/loadavg)"
	case $1 in
	perf)	out=$tmp/perf.data
		/usr/bin/time -f %M -o "$tmp/rss" perf record -q -g -a -e cpu-clock -F 20000 \
			-o "$out" -- "${stress[@]}" -t "${2}s" >/dev/null 2>"$tmp/err" ;;
	mmprof)	out=$tmp/m.data
		/usr/bin/time -f %M -o "$tmp/rss" "$mmprof" record -a -e cpu-clock -F 20000 \
			-o "$out" -- "${stress[@]}" -t "${2}s" >/dev/null 2>"$tmp/err" ;;
	esac
	recorded heavy "$row" "$1" "$out" "$tmp/err" "$tmp/rss"
	heavy_window "$row" "$1" "$out"
	if [ -z "${3:-}" ]; then
		case $1 in
		perf)	timed heavy-read "$row" perf -- perf report --children --stdio -i "$out" ;;
		mmprof)	timed heavy-read "$row" mmprof -- "$mmprof" report --tree "$out" ;;
		esac
	fi
	rm -f "$out"
}
# perf and mmprof take turns (ABAB), BENCH_PAIRS pairs of each length one
# after the other, both recording stress-ng's run as \`perf record -a --
# CMD\` does, and one more perf run after the last pair: perf against the
# perf of the next pair (the mmprof run between them) is the machine's own
# spread beside mmprof against perf in the same pair
if want heavy; then
	for hs in $heavy_secs; do
		for rep in $(seq 1 "$pairs"); do
			log "heavy, pair $rep/$pairs: stress-ng -a -F 20000, $hs s: perf, mmprof (load $(cut -d' ' -f1 /proc/loadavg))"
			heavy_run perf "$hs"
			heavy_run mmprof "$hs"
		done
		rep=$((pairs + 1))
		log "heavy, after the pairs: stress-ng -a -F 20000, $hs s: perf (load $(cut -d' ' -f1 /proc/loadavg))"
		heavy_run perf "$hs" noread
	done
fi
want worst && for rep in $(seq 1 "$pairs"); do
	log "worst case, pair $rep/$pairs: rand-recurse -F 20000, $worst_secs s: perf, mmprof"
	row="$worst_secs s"
	/usr/bin/time -f %M -o "$tmp/rss" perf record -q -g -e cpu-clock -F 20000 -o "$tmp/perf.data" -- \
		"$recurse" -s "$worst_secs" >/dev/null 2>"$tmp/err"
	recorded worst "$row" perf "$tmp/perf.data" "$tmp/err" "$tmp/rss"
	# perf report on it grew past 16 GB here (of 24): bounded, a failure is the answer
	timed worst-read "$row" perf -- prlimit --as=$((4 << 30)) perf report --children --stdio \
		-i "$tmp/perf.data"
	rm -f "$tmp/perf.data"
	/usr/bin/time -f %M -o "$tmp/rss" "$mmprof" record -e cpu-clock -F 20000 -o "$tmp/m.data" -- \
		"$recurse" -s "$worst_secs" >/dev/null 2>"$tmp/err"
	recorded worst "$row" mmprof "$tmp/m.data" "$tmp/err" "$tmp/rss"
	timed worst-read "$row" mmprof -- "$mmprof" report --tree "$tmp/m.data"
	timed worst-flame "$row" mmprof -- "$mmprof" flamegraph -o "$tmp/m.svg" "$tmp/m.data"
	timed worst-diff "$row" mmprof -- "$mmprof" diff "$tmp/m.data" "$tmp/m.data"
	rm -f "$tmp/m.data" "$tmp/m.svg"
done


# ---- the table -------------------------------------------------------------
# summary: section|row|tool|metric|median|min|max|n
sort -t$'\t' -k1,4 -k5,5g "$res" | awk -F'\t' '
	function flush() { if (n) { m = n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
		printf "%s|%s|%s|%s|%s|%s|%s|%d\n", key[1], key[2], key[3], key[4], m, v[1], v[n], n } n = 0 }
	{ k = $1 FS $2 FS $3 FS $4; if (k != prev) { flush(); prev = k; split(k, key, FS) } v[++n] = $5 }
	END { flush() }' >"$tmp/summary"

get() {	# section row tool metric field(5 median, 6 min, 7 max)
	awk -F'|' -v s="$1" -v r="$2" -v t="$3" -v m="$4" -v f="$5" \
		'$1==s && $2==r && $3==t && $4==m { print $f; exit }' "$tmp/summary"
}
num() { awk -v x="$1" -v d="${2:-0}" 'BEGIN { if (x == "") print "n/a"; else printf "%.*f", d, x }'; }
k() { awk -v x="$1" 'BEGIN { if (x == "") print "n/a"; else if (x >= 1e6) printf "%.2f M", x/1e6; else if (x >= 1e3) printf "%.0f k", x/1e3; else printf "%.0f", x }'; }
mb() { awk -v x="$1" 'BEGIN { if (x == "") print "n/a"; else if (x >= 1048576) printf "%.1f MB", x/1048576; else printf "%.0f KB", x/1024 }'; }
cell() {	# "median (min–max)" with a formatter
	local fmt=$1; shift
	local m lo hi
	m=$(get "$@" 5) lo=$(get "$@" 6) hi=$(get "$@" 7)
	[ -z "$m" ] && { echo "n/a"; return; }
	if [ "$lo" = "$hi" ]; then echo "$($fmt "$m")"; else echo "$($fmt "$m") ($($fmt "$lo")–$($fmt "$hi"))"; fi
}
k1() { k "$1"; }
n0() { num "$1" 0; }
n2() { num "$1" 2; }
n3() { num "$1" 3; }
rel() {	# tool's metric as % of the unprofiled median: "85 % (80–90)"
	local sec=$1 row=$2 tool=$3 met=$4 base m lo hi
	base=$(get "$sec" "$row" none "$met" 5)
	m=$(get "$sec" "$row" "$tool" "$met" 5) lo=$(get "$sec" "$row" "$tool" "$met" 6) hi=$(get "$sec" "$row" "$tool" "$met" 7)
	[ -z "$m" ] || [ -z "$base" ] && { echo "n/a"; return; }
	awk -v b="$base" -v m="$m" -v l="$lo" -v h="$hi" \
		'BEGIN { if (l == h) printf "%.0f %%", 100*m/b; else printf "%.0f %% (%.0f–%.0f)", 100*m/b, 100*l/b, 100*h/b }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.3g", a/b }'; }
# A's metric as % of B's within each repetition (runs minutes apart share
# the machine's state far less than adjacent ones): "median % (min–max)".
paired() {	# section row metric toolA toolB
	awk -F'\t' -v s="$1" -v r="$2" -v m="$3" -v a="$4" -v b="$5" '
		$1 == s && $2 == r && $4 == m && ($3 == a || $3 == b) { v[$3, $6] = $5; reps[$6] = 1 }
		END { for (k in reps) if (((a, k) in v) && ((b, k) in v) && v[b, k] > 0) print 100 * v[a, k] / v[b, k] }' "$res" |
	sort -g | awk '{ x[++n] = $1 }
		END { if (!n) { print "n/a"; exit }
		      m = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		      printf "%.1f %% (%.0f–%.0f)", m, x[1], x[n] }'
}

table() {
	local t_end
	t_end=$(date +%s)
	cat <<HDR
# Performance: mmprof side by side with perf

Generated by \`make bench\` (src/scripts/bench.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),
in $(( t_end - t_start )) s.  Do not edit by hand: rerun \`make bench\`.

- machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo) RAM
- kernel: $(uname -r); perf: $(perf --version 2>/dev/null | sed 's/perf version //'); mmprof $("$mmprof" --version 2>/dev/null | awk '{print $NF}')
- load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (other jobs share this machine: read ratios, not absolutes)
- command: \`make bench\`$( [ "$quick" = 1 ] && echo ' with BENCH_QUICK=1 (smoke run)') — $reps repetition(s) (the overhead runs: $overhead_reps, chosen from their spread), interleaved; cells are median (min–max)
- workload: \`build/workloads/page-fault ${wlargs[*]}\` (one thread; 4 KiB anonymous faults), cpu-clock, callchains, \`-m $pages\` for every tool

## 1. Overhead: page-fault throughput, % of unprofiled

"floor" is tests/bench/floor.c: the same sampling event opened as mmprof
opens it, ring buffers drained without reading the samples; "floor +
counters" also opens the software counting set that \`mmprof record\`
opened by default before issue 18 (with the fault and switch counters it
now reads from rusage and /proc).  Throughput is the workload's own ops/s (wall clock);
"per CPU-second" divides its operations by its own user+system time,
which sheds most of the noise of other jobs on the machine.

| setting | unprofiled ops/s | floor | floor + counters | perf record -g | mmprof record |$( [ -n "$nostat" ] && echo ' mmprof --no-stat |')
|---|---|---|---|---|---|$( [ -n "$nostat" ] && echo '---|')
HDR
	for met in ops cpuops; do
		for f in $freqs; do
			printf '| -F %s%s | %s | %s | %s | %s | %s |' "$f" \
				"$([ $met = cpuops ] && echo ', per CPU-second')" "$(cell k1 fork "-F $f" none $met)" \
				"$(rel fork "-F $f" floor $met)" "$(rel fork "-F $f" floor+stat $met)" \
				"$(rel fork "-F $f" perf $met)" "$(rel fork "-F $f" mmprof $met)"
			[ -n "$nostat" ] && printf ' %s |' "$(rel fork "-F $f" mmprof-nostat $met)"
			echo
		done
	done
	for f in $freqs; do
		printf '| -a -F %s | %s | %s | – | %s | %s |' "$f" "$(cell k1 system "-a -F $f" none ops)" \
			"$(rel system "-a -F $f" floor ops)" "$(rel system "-a -F $f" perf ops)" \
			"$(rel system "-a -F $f" mmprof ops)"
		[ -n "$nostat" ] && printf ' – |'
		echo
	done
	cat <<HDR

Paired: the first tool's throughput as % of the second's in the same
repetition (the runs are seconds apart, so slow phases of the machine
fall on both), median (min–max) over the repetitions; per CPU-second for
the per-process runs, wall clock for -a.

| setting | perf / floor | mmprof --no-stat / floor | mmprof / (floor + counters) | mmprof --no-stat / perf | mmprof / perf |
|---|---|---|---|---|---|
HDR
	for f in $freqs; do
		echo "| -F $f | $(paired fork "-F $f" cpuops perf floor) | $(paired fork "-F $f" cpuops mmprof-nostat floor) | $(paired fork "-F $f" cpuops mmprof floor+stat) | $(paired fork "-F $f" cpuops mmprof-nostat perf) | $(paired fork "-F $f" cpuops mmprof perf) |"
	done
	for f in $freqs; do
		echo "| -a -F $f | $(paired system "-a -F $f" ops perf floor) | – | – | – | $(paired system "-a -F $f" ops mmprof perf) |"
	done
	cat <<HDR

## 2. Lost samples per run (and samples taken)

| setting | floor lost | perf lost | mmprof lost | floor samples | perf samples | mmprof samples |
|---|---|---|---|---|---|---|
HDR
	for row in "-F 4000" "-F 20000" long "-a -F 4000" "-a -F 20000"; do
		sec=fork
		case $row in -a*) sec=system ;; esac
		echo "| $([ "$row" = long ] && echo "-F 20000, $long_secs s run" || echo "$row") | $(cell n0 $sec "$row" floor lost) | $(cell n0 $sec "$row" perf lost) | $(cell n0 $sec "$row" mmprof lost) | $(cell k1 $sec "$row" floor samples) | $(cell k1 $sec "$row" perf samples) | $(cell k1 $sec "$row" mmprof samples) |"
	done
	cat <<HDR

## 3. Time to answer and 4. file size (the per-process runs of section 1)

Time to answer: from the workload's exit to the children table written
(\`perf record\` finishing + \`perf report --children --stdio\`, versus
\`mmprof record\` finishing + \`mmprof report --tree\`), wall seconds; the
report's own CPU time beside it.

| setting | perf: answer s | mmprof: answer s | ratio | perf report CPU s | mmprof report CPU s (10 ms ticks) | perf.data | mmprof .data | size ratio |
|---|---|---|---|---|---|---|---|---|
HDR
	for f in $freqs long; do
		[ "$f" = long ] && row=long || row="-F $f"
		echo "| $( [ "$f" = long ] && echo "-F 20000, $long_secs s run" || echo "-F $f") | $(cell n3 fork "$row" perf answer) | $(cell n3 fork "$row" mmprof answer) | $(ratio "$(get fork "$row" mmprof answer 5)" "$(get fork "$row" perf answer 5)") | $(cell n3 fork "$row" perf reportcpu) | $(cell n3 fork "$row" mmprof reportcpu) | $(cell mb fork "$row" perf size) | $(cell mb fork "$row" mmprof size) | $(ratio "$(get fork "$row" mmprof size 5)" "$(get fork "$row" perf size 5)") |"
	done
	cat <<HDR

## 5. Ingest: record's aggregation path on one core

tests/bench/ingest.c replays $ingest_n cpu-clock samples with 30-entry
callchains through \`sampler__replay\` (parse, hash the chain, intern the
comm, count); the first visits every distinct stack once, then half the
samples go to 64 hot stacks.  Rate per CPU-second of the replaying thread.

| distinct stacks | M samples/s | CPU s | wall s | RSS growth |
|---|---|---|---|---|
HDR
	for st in 2000 100000; do
		echo "| $st | $(cell n2 ingest "$st stacks" mmprof msps) | $(cell n3 ingest "$st stacks" mmprof cpu) | $(cell n3 ingest "$st stacks" mmprof wall) | $(cell n0 ingest "$st stacks" mmprof rss) KB |"
	done
	cat <<HDR

## 6. Report and diff on synthetic files

tests/bench/gen-profile.c: $runs runs × $stacks distinct stacks per side
(kernel page-fault-like chains of 19–28 frames sharing callers as a 4-ary
tree; $(mb "$(get size-synth "$runs x $stacks" mmprof size 5)") per file).  diff compares two such files.

| command | wall s | CPU s | peak RSS MB |
|---|---|---|---|
HDR
	for c in "report (keys)" "report --tree" "diff" "diff -g"; do
		echo "| mmprof $c | $(cell n2 synth "$c" mmprof wall) | $(cell n2 synth "$c" mmprof cpu) | $(cell n0 synth "$c" mmprof rss) |"
	done
	cat <<HDR

## 7. Scaling

Report (keys) and diff (the file against itself) by size of the file,
one run each; record's aggregation by samples and distinct stacks.

| file | report s (CPU) | report MB | diff s (CPU) | diff MB |
|---|---|---|---|---|
HDR
	awk -F'|' '$1=="scale" {print $2}' "$tmp/summary" | sort -u -t'(' -k1,1 | sort -n -k1,1 -k4,4 |
	while IFS= read -r row; do
		echo "| $row | $(num "$(get scale "$row" report cpu 5)" 2) | $(num "$(get scale "$row" report rss 5)") | $(num "$(get scale "$row" diff cpu 5)" 2) | $(num "$(get scale "$row" diff rss 5)") |"
	done
	cat <<HDR

| record: samples, distinct stacks | CPU s | M samples/s | aggregate MB |
|---|---|---|---|
HDR
	awk -F'|' '$1=="scale-ingest" {print $2}' "$tmp/summary" | sort -u | sort -g |
	while IFS= read -r row; do
		echo "| $row | $(num "$(get scale-ingest "$row" record cpu 5)" 2) | $(num "$(get scale-ingest "$row" record msps 5)" 2) | $(num "$(get scale-ingest "$row" record rss 5)") |"
	done
}

# One heavy run's value: section 8, row, tool, metric, repetition (pair).
hval() { awk -F'\t' -v r="$1" -v t="$2" -v m="$3" -v k="$4" '$1 == "heavy" && $2 == r && $3 == t &&
	$4 == m && $6 == k { v = $5 } END { print v }' "$res"; }
# Section 8's samples per second of each run's own window, pair by pair,
# into $tmp/hp: "pair|mmprof / perf %|next perf / perf %" (empty: no run).
heavy_rates() {	# row metric (rate: kept, taken: kept and lost)
	local k rp rm rn
	: >"$tmp/hp"
	for k in $(seq 1 "$pairs"); do
		rp=$(hval "$1" perf "$2" "$k") rm=$(hval "$1" mmprof "$2" "$k") rn=$(hval "$1" perf "$2" $((k + 1)))
		awk -v k="$k" -v a="$rm" -v b="$rp" -v c="$rn" 'BEGIN { printf "%d|", k
			if (a != "" && b > 0) printf "%.2f", 100 * a / b; printf "|"
			if (c != "" && b > 0) printf "%.2f", 100 * c / b; print "" }' >>"$tmp/hp"
	done
}
hrun() {	# row tool pair: "load, samples, lost, window s, kept/s, taken/s"
	echo "$(hval "$1" "$2" load "$3"), $(k "$(hval "$1" "$2" samples "$3")"), $(n0 "$(hval "$1" "$2" lost "$3")"), $(n2 "$(hval "$1" "$2" window "$3")"), $(n0 "$(hval "$1" "$2" rate "$3")"), $(n0 "$(hval "$1" "$2" taken "$3")")"
}
hratio() {	# pair field file (heavy_rates')
	awk -F'|' -v k="$1" -v f="$2" '$1 == k { print ($f == "" ? "n/a" : $f " %") }' "$3"
}
heavy_pairs() {	# row
	local k
	cat <<HDR

Samples per second of each run's own sampling window, $1 runs: from the
first sample to the last by the samples' own times (perf.data's header,
mmprof's meta sample_window_ns), in the order they ran: perf and mmprof of
each pair, then perf once more.  "kept/s": the samples in the file;
"taken/s": kept and lost, what the kernel sampled (perf: its sampling
event's lost samples, not the side band's records).  "mmprof / perf": the
two runs of a pair; "next perf / perf": this pair's perf against the next
one's, two runs later, the machine's own spread in the same sequence
(kept, then taken).  Load: the 1-minute load average at each run's start.

| pair | perf: load, samples, lost, window s, kept/s, taken/s | mmprof: the same | mmprof / perf | next perf / perf |
|---|---|---|---|---|
HDR
	heavy_rates "$1" rate
	cp "$tmp/hp" "$tmp/hp.kept"
	heavy_rates "$1" taken
	for k in $(seq 1 "$pairs"); do
		echo "| $k | $(hrun "$1" perf "$k") | $(hrun "$1" mmprof "$k") | $(hratio "$k" 2 "$tmp/hp.kept"), $(hratio "$k" 2 "$tmp/hp") | $(hratio "$k" 3 "$tmp/hp.kept"), $(hratio "$k" 3 "$tmp/hp") |"
	done
	echo "| after | $(hrun "$1" perf $((pairs + 1))) | – | – | – |"
	echo
	echo "THROTTLE records (the kernel's sample-rate limit stopping an event for a tick), most in a run: perf $(n0 "$(get heavy "$1" perf throttled 7)"), mmprof $(n0 "$(get heavy "$1" mmprof throttled 7)"); kernel.perf_event_max_sample_rate at the end: $(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo n/a)."
}

heavy_table() {
	cat <<HDR

## 8. Heavy system-wide load

\`stress-ng --vm 1 --vm-bytes 128M --pthread 1 --mmap 1 --mmap-bytes 64M\`
run by \`perf record -g -a -F 20000 --\` and \`mmprof record -a -F 20000 --\`
(cpu-clock, each tool's default buffers), taking turns: $pairs pair(s),
perf then mmprof, and perf once more; the other jobs of the machine are
in the recording too.  Record MB is the
recorder's peak RSS; the readers are \`perf report --children --stdio\` and
\`mmprof report --tree\`.  Target (issue 13): a .data of at most 1/20 of
perf.data.

| run | perf samples | mmprof samples | perf lost | mmprof lost | perf.data | mmprof .data | size ratio | perf record MB | mmprof record MB | perf report s, MB | mmprof report s, MB |
|---|---|---|---|---|---|---|---|---|---|---|---|
HDR
	for hs in $heavy_secs; do
		r="$hs s"
		echo "| -a -F 20000, $r | $(cell k1 heavy "$r" perf samples) | $(cell k1 heavy "$r" mmprof samples) | $(cell n0 heavy "$r" perf lost) | $(cell n0 heavy "$r" mmprof lost) | $(cell mb heavy "$r" perf size) | $(cell mb heavy "$r" mmprof size) | $(ratio "$(get heavy "$r" mmprof size 5)" "$(get heavy "$r" perf size 5)") | $(cell n0 heavy "$r" perf recrss) | $(cell n0 heavy "$r" mmprof recrss) | $(cell n2 heavy-read "$r" perf wall), $(cell n0 heavy-read "$r" perf rss) | $(cell n2 heavy-read "$r" mmprof wall), $(cell n0 heavy-read "$r" mmprof rss) |"
	done
	for hs in $heavy_secs; do
		heavy_pairs "$hs s"
	done
	r="$worst_secs s"
	cat <<HDR

## 9. The worst case: a new stack in almost every sample

tests/bench/rand-recurse.c: sixteen functions calling each other in a
pseudo-random order 8 to 127 deep, recorded per process at -F 20000 for
$worst_secs s.  Readers: \`report --tree\` (perf: \`perf report --children
--stdio\`), \`flamegraph\`, \`diff\` of the file with itself.  Target (issue
14 item 11): record's memory and the file no larger than perf's.
\`perf report\` runs under a 4 GiB address-space limit (prlimit): "n/a"
is a report that needed more (unbounded, it passed 16 GB on this machine).
$pairs pair(s), perf then mmprof.  "cut": samples that kept only their
innermost frame (mmprof's trie of distinct chains was full, meta
stacks_cut_to_leaf; perf keeps every chain).

| tool | samples | lost | cut | file | record MB | report s, MB | flamegraph s, MB | diff s, MB |
|---|---|---|---|---|---|---|---|---|
| perf | $(cell k1 worst "$r" perf samples) | $(cell n0 worst "$r" perf lost) | 0 | $(cell mb worst "$r" perf size) | $(cell n0 worst "$r" perf recrss) | $(cell n2 worst-read "$r" perf wall), $(cell n0 worst-read "$r" perf rss) | – | – |
| mmprof | $(cell k1 worst "$r" mmprof samples) | $(cell n0 worst "$r" mmprof lost) | $(cell k1 worst "$r" mmprof cut) | $(cell mb worst "$r" mmprof size) | $(cell n0 worst "$r" mmprof recrss) | $(cell n2 worst-read "$r" mmprof wall), $(cell n0 worst-read "$r" mmprof rss) | $(cell n2 worst-flame "$r" mmprof wall), $(cell n0 worst-flame "$r" mmprof rss) | $(cell n2 worst-diff "$r" mmprof wall), $(cell n0 worst-diff "$r" mmprof rss) |
HDR
}

# ---- the targets: measured value and verdict (issue 30 point 4) -----------
# The paired ratios A/B of a metric, in %: "median lo hi n", lo-hi the
# median's interval from order statistics (about 95 %; the whole range
# below six pairs), nothing without a pair.
pstats() {	# section row metric toolA toolB
	awk -F'\t' -v s="$1" -v r="$2" -v m="$3" -v a="$4" -v b="$5" '
		$1 == s && $2 == r && $4 == m && ($3 == a || $3 == b) { v[$3, $6] = $5; reps[$6] = 1 }
		END { for (k in reps) if (((a, k) in v) && ((b, k) in v) && v[b, k] > 0) print 100 * v[a, k] / v[b, k] }' "$res" |
	sort -g | awk '{ x[++n] = $1 }
		END { if (!n) exit
		      m = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		      k = int((n - 1.96 * sqrt(n)) / 2); if (k < 1) k = 1
		      printf "%.1f %.1f %.1f %d\n", m, x[k], x[n - k + 1], n }'
}
# met / not met / machine too noisy for an interval lo-hi against a line:
# ge (the target is at least the line) or le (at most)
verdict() {	# lo hi line ge|le
	awk -v lo="$1" -v hi="$2" -v l="$3" -v d="$4" 'BEGIN {
		if (lo == "" || hi == "") { print "not measured"; exit }
		if (d == "ge") v = lo >= l ? "met" : hi < l ? "not met" : "machine too noisy"
		else v = hi <= l ? "met" : lo > l ? "not met" : "machine too noisy"
		print v }'
}
target_paired() {	# label section row metric toolA toolB line ge|le|none
	local st m lo hi n v=–
	st=$(pstats "$2" "$3" "$4" "$5" "$6")
	read -r m lo hi n <<<"${st:-}"
	if [ -z "$st" ]; then echo "| $1 | not measured | not measured |"; return; fi
	# one or two pairs show no spread: nothing to tell noise from a change by
	[ "$8" = none ] || { [ "$n" -lt 3 ] && v="too few pairs ($n)"; } ||
		v=$(verdict "$lo" "$hi" "$7" "$8")
	echo "| $1 | $m % ($lo–$hi, $n pairs) | $v |"
}
# the ratio of the medians of two tools' metric against a line (le)
target_ratio() {	# label section row metric line
	local a b
	a=$(get "$2" "$3" mmprof "$4" 5) b=$(get "$2" "$3" perf "$4" 5)
	if [ -z "$a" ] || [ -z "$b" ]; then echo "| $1 | not measured | not measured |"; return; fi
	echo "| $1 | $(ratio "$a" "$b") | $(verdict "$(ratio "$a" "$b")" "$(ratio "$a" "$b")" "$5" le) |"
}
# An overhead target (issue 30 point 3): the tool's ratio to the floor,
# geometric mean of the repetitions' paired ratios with its 95 % interval,
# and the verdict against 99 %: met, not met, or too noisy, with the count
# of repetitions the spread seen would need to decide it.
target_overhead() {	# label section row metric tool
	local st m lo hi n sd need v
	st=$(ostats "$2" "$3" "$4" "$5" floor)
	if [ -z "$st" ]; then echo "| $1 | not measured | not measured |"; return; fi
	read -r m lo hi n sd <<<"$st"
	need=$(awk -v m="$m" -v sd="$sd" -v n="$n" 'BEGIN { d = log(m / 99); if (d < 0) d = -d
		if (d < 0.01) d = 0.01; k = (2.0 * sd / d) ^ 2; if (k < n + 1) k = n + 1
		print (k > 9999) ? "over 9999" : int(k) + 1 }')
	v=$(verdict "$lo" "$hi" 99 ge)
	case $5 in perf) v="– (beside it: $v)" ;; esac
	[ "$v" = "machine too noisy" ] && v="machine too noisy: $n repetitions show ±$(awk -v l="$lo" -v h="$hi" 'BEGIN { printf "%.1f", (h - l) / 2 }') points, deciding it would take about $need"
	echo "| $1 | $m % ($lo–$hi, 95 % interval, $n repetitions) | $v |"
}
# Section 8's sample counts within 1 % of perf's in the same pair, judged on
# the samples per second of each run's own window (heavy_rates), beside
# perf's own spread in the same sequence (next perf / perf): met when every
# pair is within 1 %; not met when mmprof's median is further from perf's
# than 1 % and than perf ever is from itself there; else the machine is too
# noisy (perf differs from itself by more than the target).
target_rate() {	# row metric label
	local line
	heavy_rates "$1" "$2"
	line=$(awk -F'|' '$2 != "" { m[++n] = $2; d = $2 - 100; if (d < 0) d = -d; if (d > dm) dm = d }
		$3 != "" { p[++np] = $3; d = $3 - 100; if (d < 0) d = -d; if (d > dp) dp = d }
		END { if (!n) { print "not measured|not measured"; exit }
		      md = n % 2 ? m[(n + 1) / 2] : (m[n / 2] + m[n / 2 + 1]) / 2
		      s = sprintf("mmprof / perf %.2f %% (%.2f–%.2f, %d pairs); perf / next perf within %.2f %% (%d pairs)",
				  md, m[1], m[n], n, dp, np)
		      e = md - 100; if (e < 0) e = -e
		      for (i = 1; i <= n; i++) { d = m[i] - 100; if (d < 0) d = -d; if (d > 1) off++ }
		      if (n < 3) v = "too few pairs (" n ")"
		      else if (dm <= 1) v = "met"
		      else if (e > 1 && e > dp) v = "not met"
		      else v = sprintf("machine too noisy: the median is no further from perf than %s, %d of %d pairs off by more than 1 %%; more pairs (BENCH_PAIRS) or a quieter machine decide", \
				       e <= 1 ? "1 %" : "perf is from itself", off, n)
		      print s "|" v }' < <(sort -t'|' -k2,2g "$tmp/hp"))
	echo "| heavy -a -F 20000, $1: $3 per second of the run's own window within 1 % of perf's in the same pair | ${line%%|*} | ${line#*|} |"
}
targets() {
	local f row sec bad lo hi m r
	cat <<HDR

## Targets: where mmprof stands

Each target of this page with what this run measured and a verdict:
"met", "not met", or "machine too noisy" when the interval of the paired
runs (the median's, from order statistics; the whole range below six
pairs) holds the target's line, so that more pairs or a quieter machine
must decide ("too few pairs" below three: BENCH_REPS, BENCH_PAIRS).
Ratios of two tools are paired within a repetition; the others are
ratios of the medians.  The overhead rows: the geometric mean of the
repetitions' paired ratios to the floor with its 95 % interval; the
bench repeated the overhead runs until the spread decided every one of
them or said it would take more than BENCH_MAX_REPS ($max_reps), and a
row it cannot decide says how many repetitions that spread would need.
Section 8's rate rows compare samples per second of each run's own
window (both tools record stress-ng's run, each until it notices the
exit), beside perf against perf in the same sequence: "machine too
noisy" when mmprof is no further from perf than perf is from itself.

| target | measured | verdict |
|---|---|---|
HDR
	for f in $freqs; do
		target_overhead "overhead -F $f per process: mmprof / floor ≥ 99 % (per CPU-second)" fork "-F $f" cpuops mmprof
		target_overhead "overhead -F $f per process: perf / floor, beside it" fork "-F $f" cpuops perf
		target_overhead "overhead -a -F $f: mmprof / floor ≥ 99 %" system "-a -F $f" ops mmprof
		target_overhead "overhead -a -F $f: perf / floor, beside it" system "-a -F $f" ops perf
	done
	bad=
	for row in "-F 4000" "-F 20000" long "-a -F 4000" "-a -F 20000"; do
		sec=fork
		case $row in -a*) sec=system ;; esac
		m=$(get $sec "$row" mmprof lost 7) r=$(get $sec "$row" perf lost 7)
		[ -z "$m" ] && continue
		case $row in *4000) [ "$m" -gt 0 ] && bad="$bad $row: $m;" ;; esac
		[ -n "$r" ] && [ "$m" -gt "$r" ] && bad="$bad $row: $m against perf's $r;"
	done
	echo "| lost samples ≤ perf's in every row of section 2, 0 at 4 kHz | ${bad:-none over} | $([ -z "$bad" ] && echo met || echo not met) |"
	for hs in $heavy_secs; do
		r="$hs s"
		bad=$(awk -F'\t' -v r="$r" '$1 == "heavy" && $2 == r && $4 == "lost" { v[$3, $6] = $5; reps[$6] = 1 }
			END { for (k in reps) if (v["perf", k] == 0 && v["mmprof", k] > 0) n++; print n + 0 }' "$res")
		echo "| heavy -a -F 20000, $r: mmprof lost 0 in every pair where perf lost 0 | $bad pair(s) with a loss | $([ "$bad" = 0 ] && echo met || echo not met) |"
		target_rate "$r" rate "samples kept"
		target_rate "$r" taken "samples taken (kept and lost)"
	done
	for row in "-F 4000" "-F 20000" long; do
		target_ratio "time to answer ≤ 1/10 of perf's ($row)" fork "$row" answer 0.1
	done
	target_ratio "file ≤ 1/20 of perf.data (-F 20000, $long_secs s run)" fork long size 0.05
	for hs in $heavy_secs; do
		target_ratio "file ≤ 1/20 of perf.data (heavy -a, $hs s)" heavy "$hs s" size 0.05
	done
	r="$worst_secs s"
	target_ratio "file ≤ 1/20 of perf.data (worst case, $r)" worst "$r" size 0.05
	target_paired "worst case: record's peak RSS ≤ perf's" worst "$r" recrss mmprof perf 100 le
	m=$(get worst "$r" mmprof cut 7)
	echo "| worst case: 0 samples cut to the leaf | ${m:-not measured} (most in a run) | $([ -z "$m" ] && echo not measured || { [ "$m" = 0 ] && echo met || echo not met; }) |"
	target_paired "worst case: report's peak RSS ≤ perf report's (perf's under a 4 GiB limit)" worst-read "$r" rss mmprof perf 100 le
	for st in 2000 100000; do
		lo=$(get ingest "$st stacks" mmprof msps 6) hi=$(get ingest "$st stacks" mmprof msps 7)
		echo "| ingest ≥ 5 M samples/s, $st stacks | $(cell n2 ingest "$st stacks" mmprof msps) | $(verdict "$lo" "$hi" 5 ge) |"
	done
	lo=$(get synth "diff -g" mmprof rss 6) hi=$(get synth "diff -g" mmprof rss 7)
	echo "| diff -g of $runs runs × $stacks stacks: under 200 MB | $(cell n0 synth "diff -g" mmprof rss) MB ($(cell n2 synth "diff -g" mmprof cpu) s CPU) | $(verdict "$lo" "$hi" 200 le) |"
	for c in "report (keys)" "diff"; do
		lo=$(get synth "$c" mmprof cpu 6) hi=$(get synth "$c" mmprof cpu 7)
		echo "| $c of $runs runs × $stacks stacks: under 1 s | $(cell n2 synth "$c" mmprof cpu) s CPU | $(verdict "$lo" "$hi" 1 le) |"
		lo=$(get synth "$c" mmprof rss 6) hi=$(get synth "$c" mmprof rss 7)
		echo "| $c of $runs runs × $stacks stacks: under 200 MB | $(cell n0 synth "$c" mmprof rss) MB | $(verdict "$lo" "$hi" 200 le) |"
	done
	# sections 10 and 11: one measurement each, at the load of the moment
	target_one "store: SQLite, one client, a process a file ≥ 50 files/s" store SQLite one 50 ge "/s"
	target_one "store: PostgreSQL, one client, a process a file ≥ 20 files/s" store PostgreSQL one 20 ge "/s"
	for db in SQLite PostgreSQL; do
		m=$(rval store "$db" mmprof one)
		target_one "store: $db, 16 clients, each no slower than one client (${m:-n/a}/s)" store "$db" each16 "${m:-0}" ge "/s"
		target_one "store: $db, at most 1.2 × the .data per push" store "$db" size 1.2 le " ×"
	done
	target_one "history of one key, $([ "$quick" = 1 ] && echo 1,000 || echo 10,000) runs × 500 keys: under 0.5 s" history "one key" wall 0.5 le " s"
	target_one "change-point scan of 200 keys × 1,000 commits: under 10 s" history scan wall 10 le " s"
}
# The last value of a metric in the results (one measurement).
rval() { awk -F'\t' -v s="$1" -v r="$2" -v t="$3" -v m="$4" '$1 == s && $2 == r && $3 == t && $4 == m { v = $5 }
	END { print v }' "$res"; }
target_one() {	# label section row metric line ge|le unit
	local v
	v=$(rval "$2" "$3" mmprof "$4")
	if [ -z "$v" ]; then echo "| $1 | not measured | not measured |"; return; fi
	echo "| $1 | $v$7 (one measurement, load $(cut -d' ' -f1 /proc/loadavg)) | $(verdict "$v" "$v" "$5" "$6") |"
}

mkdir -p "$(dirname "$doc")"
{ table; heavy_table; want store && "$(dirname "$0")/bench-store.sh" "$mmprof" "$tmp"
  want history && "$(dirname "$0")/bench-history.sh" "$mmprof" "$tmp"; targets; } >"$tmp/table.md"
# the measured part, then the hand-written analysis kept below the marker
if [ -f "$doc" ] && grep -q '^<!-- analysis -->' "$doc"; then
	sed -n '/^<!-- analysis -->/,$p' "$doc" >"$tmp/analysis"
	{ cat "$tmp/table.md"; echo; cat "$tmp/analysis"; } >"$doc"
else
	{ cat "$tmp/table.md"; echo; echo '<!-- analysis -->'; } >"$doc"
fi
cat "$tmp/table.md"
echo
echo "mmprof bench: wrote $doc"
