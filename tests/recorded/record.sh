#!/bin/sh
# record.sh: re-record the small real corpus of t306 (issue 32 point 5).
#
#	tests/recorded/record.sh [BUILD]	(from the top of the tree, as root)
#
# Four pairs, the sides interleaved (record --interleave: a b b a a b ...),
# one file a side:
#   thp-zap     the bundled thp-zap --thp off against --thp on, 4 runs a
#               side: named functions, __split_huge_pmd and the huge-page
#               fault path appear in every run of one side only
#   vm-keep     Debian's stress-ng (stripped: most samples unnamed) --vm
#               without and with --vm-keep, 6 runs a side: the page-fault
#               path shrinks, and the named part of a run swings from run
#               to run
#   mmap-file   stress-ng --mmap without and with --mmap-file, 6 runs a
#               side: file-backed paths appear
#   aa-vm       stress-ng --vm against itself, 4 runs a side: a real A/A
# Files are stripped of kernel addresses and host identity (mmprof strip)
# before they are committed; each is 90-250 KB.
set -eu
build=${1:-build}
mmprof=$build/mmprof
out=tests/recorded
lock=${TMPDIR:-/tmp}/mmprof-thp-split.lock
# an empty build-id cache: a stripped program stays stripped
PERF_BUILDID_DIR=$(mktemp -d)
export PERF_BUILDID_DIR
sng="stress-ng --metrics-brief"

pair() {	# pair NAME RUNS "CMD-A" "CMD-B"
	rm -rf "$out/$1"
	mkdir -p "$out/$1"
	# shellcheck disable=SC2086
	"$mmprof" record -q -r "$2" -o "$out/$1/a.data" --interleave "$out/$1/b.data" -- $3 -- $4 \
		>/dev/null 2>&1
	"$mmprof" strip "$out/$1/a.data" >/dev/null
	"$mmprof" strip "$out/$1/b.data" >/dev/null
}
exec 9>"$lock"
flock 9
pair thp-zap 4 "$build/workloads/thp-zap --thp off -s 1" "$build/workloads/thp-zap --thp on -s 1"
exec 9>&-
pair vm-keep 6 "$sng -t 2 --vm 1 --vm-bytes 64M" "$sng -t 2 --vm 1 --vm-bytes 64M --vm-keep"
pair mmap-file 6 "$sng -t 2 --mmap 1 --mmap-bytes 32M" "$sng -t 2 --mmap 1 --mmap-bytes 32M --mmap-file"
pair aa-vm 4 "$sng -t 1 --vm 1 --vm-bytes 64M" "$sng -t 1 --vm 1 --vm-bytes 64M"
rm -rf "$PERF_BUILDID_DIR"
