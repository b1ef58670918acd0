#!/usr/bin/env bash
# bench-store.sh MMPROF TMP: make bench's section 10, the results store
# (issue 33): mmprof push's rate into an SQLite file and into PostgreSQL
# (a private cluster, tests/integration/store.sh, with fsync on), from one
# client and from 16 at once, and the store's size per push against the
# .data's.  bench.sh runs it and puts its markdown (stdout) in
# Documentation/performance.md; it can run alone, to print the section.
#
# The file: a typical recording (stress-ng --pthread 2, -g, 5 runs, about
# 200 KB); N variants of it (a meta value patched in place, so that each
# is a push of its own: a push is idempotent by the file's bytes).
#   one client   N pushes one after another, a process per file (a CI job's
#                way), and the same N as one process (mmprof push F1..FN)
#   16 clients   16 x N/4 pushes at once, a process per file
# Rates are files a second of wall time, over the whole set; "CPU" is the
# pushers' own CPU time per file (user + system, from bash's times), the
# server's not included.  No pass or fail here: the targets are read in
# performance.md's text.
#
# Environment: BENCH_STORE_FILES (N, default 100; 20 in BENCH_QUICK).
set -uo pipefail
export LC_ALL=C
mmprof=${1:?usage: bench-store.sh MMPROF TMP}
tmp=${2:?usage: bench-store.sh MMPROF TMP}
here=$(cd "$(dirname "$0")/../.." && pwd)
n=${BENCH_STORE_FILES:-$([ "${BENCH_QUICK:-0}" = 1 ] && echo 20 || echo 100)}
per16=$((n / 4))
log() { printf '  %s\n' "$*" >&2; }

# shellcheck source=../../tests/integration/store.sh
. "$here/tests/integration/store.sh"
trap 'pg_stop' EXIT

d=$tmp/store
mkdir -p "$d"
"$mmprof" record -q -g -r 5 -o "$d/rec.data" -- stress-ng --pthread 2 -t 1 >/dev/null 2>"$d/rec.err" ||
	{ echo "mmprof bench: the store section's recording failed" >&2; cat "$d/rec.err" >&2; exit 2; }
variant_base "$d/rec.data" "$d/base.data" ||
	{ echo "mmprof bench: cannot make variants of the store section's recording" >&2; exit 2; }
size=$(stat -c %s "$d/base.data")
keys=$("$mmprof" push --store "$d/count.db" --commit x "$d/base.data" | sed 's/.*runs, \([0-9]*\) keys, \([0-9]*\) values/\1 keys, \2 values/')

# variants SET ID COUNT: $d/SET-1.data .. $d/SET-COUNT.data, each of bytes of its own (ID: the set's)
variants() {
	local i=0
	while [ $i -lt "$3" ]; do
		i=$((i + 1))
		variant "$d/$1-$i.data" "$2" $i
	done
}

# timed NAME -- CMD...: wall seconds and the command's children's CPU seconds into $d/NAME.t
timed() {
	local name=$1 t0 t1
	shift 2
	t0=$(date +%s.%N)
	"$@"
	t1=$(date +%s.%N)
	# bash's times: this shell's, then its children's user and system time
	# (into a file: in a pipeline it would be a new subshell's, all zero)
	times >"$d/times"
	awk -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
		function s(x,  m) { m = x; sub(/m.*/, "", m); sub(/^[0-9]*m/, "", x); sub(/s$/, "", x); return m * 60 + x }
		NR == 2 { print w, s($1) + s($2) }' "$d/times" >"$d/$name.t"
}

one_by_one() {	# STORE SET COUNT
	local i=0
	while [ $i -lt "$3" ]; do
		i=$((i + 1))
		"$mmprof" push -q --store "$1" --commit "$2-$i" "$d/$2-$i.data" || echo "push $2-$i failed" >&2
	done
}

at_once() {	# STORE SET: 16 clients of $per16 pushes each
	local c=0
	while [ $c -lt 16 ]; do
		c=$((c + 1))
		(
			i=0
			while [ $i -lt $per16 ]; do
				i=$((i + 1))
				"$mmprof" push -q --store "$1" --commit "$2-$c-$i" "$d/$2-$(((c - 1) * per16 + i)).data" ||
					echo "push $2 $c $i failed" >&2
			done
		) &
	done
	wait
}

batch() {	# STORE SET COUNT: one process
	local files=() i=0
	while [ $i -lt "$3" ]; do
		i=$((i + 1))
		files+=("$d/$2-$i.data")
	done
	"$mmprof" push -q --store "$1" --commit "$2" "${files[@]}" || echo "push $2 failed" >&2
}

# measure STORE PREFIX: the three ways into STORE, each on files of its own
measure() {
	variants "$2one" 1 "$n"
	variants "$2batch" 2 "$n"
	variants "$2conc" 3 $((16 * per16))
	log "push: $n files one by one into $2"
	( timed "$2one" -- one_by_one "$1" "$2one" "$n" )
	log "push: $n files in one process into $2"
	( timed "$2batch" -- batch "$1" "$2batch" "$n" )
	log "push: 16 clients x $per16 files into $2"
	( timed "$2conc" -- at_once "$1" "$2conc" )
	rm -f "$d/$2"*-*.data
}

measure "$d/bench.db" sq
sqlite3 "$d/bench.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
sq_pushes=$(sqlite3 "$d/bench.db" "SELECT count(*) FROM pushes")
sq_bytes=$(( $(stat -c %s "$d/bench.db") + $(stat -c %s "$d/bench.db-wal" 2>/dev/null || echo 0) ))
sq_blob=$(sqlite3 "$d/bench.db" "SELECT sum(length(data)) FROM blobs")
sq_vals=$(sqlite3 "$d/bench.db" "SELECT sum(length(vals)) FROM keyvals")

pg_ok=1
if pg_start -c fsync=on -c synchronous_commit=on >/dev/null 2>&1; then
	pg_empty=$(pg_sql "SELECT pg_database_size('mmprof')")
	measure "$PGURL" pg
	pg_pushes=$(pg_sql "SELECT count(*) FROM pushes")
	pg_sql "VACUUM ANALYZE" >/dev/null
	pg_bytes=$(( $(pg_sql "SELECT pg_database_size('mmprof')") - pg_empty ))
	pg_blob=$(pg_sql "SELECT pg_total_relation_size('blobs')")
	pg_vals=$(pg_sql "SELECT pg_total_relation_size('keyvals')")
else
	pg_ok=0
	log "push: no PostgreSQL cluster could start; its rows are n/a"
fi

rate() {	# NAME FILES: "files/s (CPU ms a file)"
	[ -s "$d/$1.t" ] || { echo "n/a"; return; }
	awk -v f="$2" '{ printf "%.1f/s (%.0f ms CPU a file)", f / $1, 1000 * $2 / f }' "$d/$1.t"
}
per_client() {	# NAME: 16 clients' rate each
	[ -s "$d/$1.t" ] || { echo "n/a"; return; }
	awk -v f="$per16" '{ printf "%.1f/s", f / $1 }' "$d/$1.t"
}
ratio() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { if (!p || !b) print "n/a"; else printf "%.2f", a / p / b }'; }
kb() { awk -v a="$1" -v p="$2" 'BEGIN { if (!p) print "n/a"; else printf "%.0f KB", a / p / 1024 }'; }

# the figures the targets are judged on, for bench.sh's targets table
# (its results.tsv: section, row, tool, metric, value, repetition)
emit() {	# row metric value
	[ -f "$tmp/results.tsv" ] && [ -n "$3" ] && printf 'store\t%s\tmmprof\t%s\t%s\t0\n' "$@" >>"$tmp/results.tsv"
	return 0
}
frate() { [ -s "$d/$1.t" ] && awk -v f="$2" '{ printf "%.2f", f / $1 }' "$d/$1.t"; }
emit SQLite one "$(frate sqone "$n")"
emit SQLite each16 "$(frate sqconc "$per16")"
emit SQLite size "$(awk -v a="$sq_bytes" -v b="$size" -v p="$sq_pushes" 'BEGIN { if (p && b) printf "%.3f", a / p / b }')"
if [ $pg_ok = 1 ]; then
	emit PostgreSQL one "$(frate pgone "$n")"
	emit PostgreSQL each16 "$(frate pgconc "$per16")"
	emit PostgreSQL size "$(awk -v a="${pg_bytes:-0}" -v b="$size" -v p="${pg_pushes:-0}" 'BEGIN { if (p && b) printf "%.3f", a / p / b }')"
fi

cat <<EOF

## 10. Results store: push rate and size (issue 33)

src/scripts/bench-store.sh: a typical file (stress-ng --pthread 2, -g, 5
runs: $((size / 1024)) KB, $keys), pushed as $n distinct variants
one by one (a process a file, as a CI job pushes), as one process
(\`mmprof push F1 ... F$n\`), and by 16 clients at once ($per16 each, a
process a file).  PostgreSQL: a private cluster on this machine (Unix
socket, fsync on).  Rates over the whole set, wall time; CPU is the
pushers' own (the server's not counted).  Load average at the end:
$(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs.  Targets: 50 files/s
into SQLite and 20/s into PostgreSQL from one client, no slower per
client with 16; at most 1.2 x the .data per push.

| store | one client, a process a file | one process | 16 clients: all | 16 clients: each |
|---|---|---|---|---|
| SQLite | $(rate sqone "$n") | $(rate sqbatch "$n") | $(rate sqconc $((16 * per16))) | $(per_client sqconc) |
| PostgreSQL | $( [ $pg_ok = 1 ] && rate pgone "$n" || echo n/a) | $( [ $pg_ok = 1 ] && rate pgbatch "$n" || echo n/a) | $( [ $pg_ok = 1 ] && rate pgconc $((16 * per16)) || echo n/a) | $( [ $pg_ok = 1 ] && per_client pgconc || echo n/a) |

| store | pushes | size per push | x the .data | the file (zlib'd) | key rows |
|---|---|---|---|---|---|
| SQLite | $sq_pushes | $(kb "$sq_bytes" "$sq_pushes") | $(ratio "$sq_bytes" "$size" "$sq_pushes") | $(kb "$sq_blob" "$sq_pushes") | $(kb "$sq_vals" "$sq_pushes") |
| PostgreSQL | ${pg_pushes:-n/a} | $(kb "${pg_bytes:-0}" "${pg_pushes:-0}") | $(ratio "${pg_bytes:-0}" "$size" "${pg_pushes:-0}") | $(kb "${pg_blob:-0}" "${pg_pushes:-0}") | $(kb "${pg_vals:-0}" "${pg_pushes:-0}") |
EOF
