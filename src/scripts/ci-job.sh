#!/usr/bin/env bash
# ci-job.sh: the CI job of Documentation/ci-integration.md, one file that the
# guide's GitHub Actions and GitLab CI examples call (and the suite runs end
# to end, t960): record one side on the kernel the runner booted, or compare
# two sides and gate.
#
#   ci-job.sh record SIDE [-- WORKLOAD ARGS...]
#       SIDE.data: RUNS runs of the workload (default: $WORKLOAD, else the
#       bundled thp-zap for 10 s), with the kernel release printed first.
#   ci-job.sh compare [BASE.data NEW.data]
#       diff.txt (the table with call chains, also printed), diff.md (the
#       markdown table), then the gates of GATES with report.html (the
#       one-file HTML report), junit.xml (each gate a test case) and
#       summary.md (the verdict in short, appended to $GITHUB_STEP_SUMMARY
#       when that is set); default files base.data and new.data.
#
# Exit status: mmprof's own, so a CI job reads it as it reads diff's:
# 0 no gate tripped, 1 a gate tripped (a regression), 2 an error (a setup
# problem, not a verdict).  Artifacts are written before the gates run, so
# a failed job still has them.
#
# Environment:
#   MMPROF  the mmprof binary (default: build/mmprof beside this script's
#           tree, else mmprof on PATH)
#   RUNS    runs a side (default 5)
#   WORKLOAD the workload's command line when none follows "--" (split at
#           blanks; default: build/workloads/thp-zap --seconds 10)
#   GATES   gate file for --gate-file (default mmprof-gates.txt; a missing
#           default file means no gates, a missing named file is an error)
#   OUT     folder for the outputs (default .)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -z "${MMPROF:-}" ]; then
	if [ -x "$here/build/mmprof" ]; then
		MMPROF=$here/build/mmprof
	else
		MMPROF=mmprof
	fi
fi
runs=${RUNS:-5}
out=${OUT:-.}

die() {
	echo "ci-job.sh: $*" >&2
	exit 2
}

usage() {
	echo "usage: ci-job.sh record SIDE [-- WORKLOAD ARGS...] | ci-job.sh compare [BASE.data NEW.data]" >&2
	exit 2
}

record() {
	side=${1:-}
	[ -n "$side" ] || usage
	case $side in
	*/* | -*) die "side '$side' must be a plain name (it names $side.data)" ;;
	esac
	shift
	if [ "${1:-}" = -- ]; then
		shift
	fi
	if [ $# -eq 0 ] && [ -n "${WORKLOAD:-}" ]; then
		read -ra cmd <<<"$WORKLOAD"
		set -- "${cmd[@]}"
	fi
	[ $# -gt 0 ] || set -- "$here/build/workloads/thp-zap" --seconds 10
	mkdir -p "$out" || die "cannot create '$out'"
	echo "kernel: $(uname -r)"
	"$MMPROF" record -r "$runs" -o "$out/$side.data" -- "$@"
}

compare() {
	base=${1:-$out/base.data} new=${2:-$out/new.data}
	[ $# -eq 0 ] || [ $# -eq 2 ] || usage
	gates=()
	if [ -n "${GATES:-}" ]; then
		[ -r "$GATES" ] || die "cannot read the gate file '$GATES' (GATES)"
		gates=(--gate-file "$GATES")
	elif [ -r mmprof-gates.txt ]; then
		gates=(--gate-file mmprof-gates.txt)
	fi
	mkdir -p "$out" || die "cannot create '$out'"
	# the tables first: a diff that exits 2 here is a broken setup
	"$MMPROF" diff -g "$base" "$new" >"$out/diff.txt" || exit 2
	cat "$out/diff.txt"
	"$MMPROF" diff -f markdown "$base" "$new" >"$out/diff.md" || exit 2
	# then the verdict (each tripped gate named on stderr) and its reports,
	# written whether a gate trips or not
	"$MMPROF" diff --html "$out/report.html" --junit "$out/junit.xml" --summary "$out/summary.md" \
		${gates[@]+"${gates[@]}"} "$base" "$new" >/dev/null
	rc=$?
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/summary.md" ]; then
		cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
	fi
	return $rc
}

case ${1:-} in
record) shift; record "$@" ;;
compare) shift; compare "$@" ;;
*) usage ;;
esac
