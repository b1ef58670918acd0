#!/bin/sh
# cmp-binaries.sh OLD NEW DIR: run one set of report and diff commands with
# two mmprof binaries on the .data files in DIR (off.data, on.data,
# off2.data: 4 runs each; one.data: 1 run; pf.data: another workload) and
# cmp their stdout, stderr, exit status and the files they write.  For
# refactors that must keep outputs byte-identical: record the files once,
# e.g. with the bundled workloads:
#   mmprof record -r 4 -o DIR/off.data -- thp-zap --thp off -s 1
#   mmprof record -r 4 -o DIR/on.data -- thp-zap --thp on -s 1
#   mmprof record -r 4 -o DIR/off2.data -- thp-zap --thp off -s 1
#   mmprof record -r 1 -o DIR/one.data -- thp-zap --thp on -s 0.5
#   mmprof record -r 3 -o DIR/pf.data -- page-fault -s 1
# and, when present, for the costs per op, --force and failed runs:
#   mmprof record -r 3 -o DIR/cm1.data -- cost-mix --hot 1500 --other 8500
#   mmprof record -r 3 -o DIR/cm2.data -- cost-mix --hot 3000 --other 8500
#   mmprof record -r 3 -o DIR/cm3.data -- cost-mix --hot 1500 --other 8500 -s 1
#   mmprof record -r 3 -e page-faults -o DIR/pfev.data -- thp-zap --thp off -s 0.5
#   mmprof record -r 2 -o DIR/fail.data -- sh -c 'exit 3'
#   mmprof record -r 2 -e cpu-clock -e kmem:kmalloc --field kmem:kmalloc/call_site \
#       -o DIR/tp.data -- thp-zap --thp off -s 0.3
# Prints one line per command that differs and a count; exit 1 if any did.
old=$1 new=$2 dir=$3
test -x "$old" && test -x "$new" && test -d "$dir" || {
	echo "usage: cmp-binaries.sh OLD NEW DIR" >&2
	exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$dir" || exit 2
n=0 bad=0

run() {	# run ARGS...: both binaries, compare everything
	n=$((n + 1))
	for b in old new; do
		eval bin=\$$b
		rm -rf "$work/$b" "$work/out"
		mkdir -p "$work/out"
		# @OUT@: where a command writes files (--html, --junit, --summary),
		# one path for both binaries, since a summary names the HTML file
		cmd=$(printf '%s\n' "$*" | sed "s|@OUT@|$work/out|g")
		eval "\"$bin\" $cmd" >"$work/$b.out" 2>"$work/$b.err"
		echo $? >"$work/$b.rc"
		# the binary's own path may appear in messages
		sed -i "s|$bin|MMPROF|g" "$work/$b.err"
		# and the process id in a temporary file's name
		sed -i 's/\.tmp\.[0-9]*/.tmp.PID/g' "$work/$b.err"
		mv "$work/out" "$work/$b"
		# JUnit's timestamp is the second the file was written
		for x in "$work/$b/"*.xml; do
			test -e "$x" && sed -i 's/timestamp="[^"]*"/timestamp=""/' "$x"
		done
	done
	for f in out err rc; do
		if ! cmp -s "$work/old.$f" "$work/new.$f"; then
			echo "differs ($f): $*"
			bad=$((bad + 1))
			return
		fi
	done
	for f in "$work/old/"*; do
		test -e "$f" || continue
		# a store holds each push's wall-clock time
		case $f in *.db) continue ;; esac
		if ! cmp -s "$f" "$work/new/${f##*/}"; then
			echo "differs (file ${f##*/}): $*"
			bad=$((bad + 1))
			return
		fi
	done
}

for fmt in lkp json csv markdown md; do
	for sel in "" --all --robot; do
		run diff -f $fmt $sel off.data on.data
		run diff -f $fmt $sel on.data off.data
		run diff -f $fmt $sel off.data off2.data
		run diff -f $fmt $sel off.data -- on.data off2.data
		run diff -f $fmt $sel off.data off2.data -- on.data
		run diff -f $fmt $sel one.data off.data
		run diff -f $fmt $sel off.data pf.data
	done
	run diff -f $fmt -g off.data on.data
	run diff -f $fmt -g --limit 3 off.data on.data
done
for c in --color --no-color; do
	run diff $c off.data on.data
	run diff $c --all off.data on.data
	run diff $c --robot off.data on.data
	run diff $c off.data off2.data
	run diff $c --all one.data on.data
done
run diff --drop-run base:1 off.data on.data
run diff --drop-run new:3 --drop-run base:0 off.data on.data
run diff --drop-run new:9 off.data on.data
run diff --drop-run side:1 off.data on.data
run diff --drop-run new1:1 off.data on.data
run diff -q 0.2 --min-points 0.5 off.data on.data
run diff --min-pct 5 --threshold-pct 10 --threshold-points 1 one.data on.data
run diff --ambient "'perf-stat.*'" off.data on.data
run diff --no-ambient --all off.data on.data
run diff --fail-on "'perf-profile.children.*.__split_huge_pmd > 1'" off.data on.data
run diff --fail-on "'perf-profile.children.*.__split_huge_pmd > 100'" off.data on.data
run diff --fail-on "'perf-profile.children.*.nosuchfn > 1'" off.data on.data
run diff --fail-on "'nosuch.key > 1'" off.data on.data
run diff --fail-on "'nosuch.key > 1'" --allow-unmatched off.data on.data
run diff --fail-on "'proc-vmstat.pgfault < -5%'" --fail-on-any off.data on.data
run diff --fail-on "'thp-zap.ops > +10%'" off.data on.data
run diff --fail-on "'bad <'" off.data on.data
run diff --fail-on "'meminfo.* > 1%'" off.data on.data
run diff --fail-on "'*.x > 1'" off.data on.data
run diff --fail-on "'perf-profile.children.*.__split_huge_pmd > 1'" -f json off.data on.data
run diff --junit @OUT@/j.xml --summary @OUT@/s.md --fail-on "'perf-profile.children.*.__split_huge_pmd > 1'" off.data on.data
run diff --junit @OUT@/j.xml --summary @OUT@/s.md --html @OUT@/r.html off.data off2.data
run diff --html @OUT@/r.html off.data on.data
run diff --html @OUT@/r.html --all off.data on.data
run diff -f json off.data pf.data
run diff off.data
run diff
run diff a.data b.data
run diff off.data nosuch.data
run diff -- off.data on.data
run diff off.data on.data --
run diff --force off.data on.data
run diff -f nosuch off.data on.data
run diff --limit 2 -g off.data on.data

# several columns, -g, --cost, --drop-run and the CI files together
for fmt in lkp json csv markdown; do
	run diff -f $fmt -g off.data on.data off2.data
	run diff -f $fmt -g --all off.data -- on.data -- off2.data pf.data
	run diff -f $fmt -g --drop-run base:1 off.data on.data
	run diff -f $fmt -g --robot off.data on.data
	run diff -f $fmt --cost off.data on.data
	run diff -f $fmt --cost --all off.data on.data
	run diff -f $fmt --cost --robot off.data on.data
	run diff -f $fmt --cost off.data on.data off2.data
done
run diff -g --limit 5 --html @OUT@/r.html off.data on.data
run diff -g --fail-on "'perf-profile.children.*.__split_huge_pmd > 1'" off.data on.data
run diff -g --junit @OUT@/j.xml off.data on.data
run diff --html @OUT@/r.html off.data on.data off2.data
run diff --html @OUT@/r.html --junit @OUT@/j.xml --summary @OUT@/s.md off.data on.data off2.data
run diff --html @OUT@/r.html --junit @OUT@/j.xml --summary @OUT@/s.md --gate-column new2 --fail-on "'perf-profile.children.*.__split_huge_pmd > 1'" off.data on.data off2.data
run diff --gate-column new1 --fail-on "'perf-profile.children.*.__split_huge_pmd > 1'" off.data on.data off2.data
run diff --gate-column new9 --fail-on "'perf-profile.children.*.__split_huge_pmd > 1'" off.data on.data off2.data
run diff --gate-file nosuch.gates off.data on.data
run diff --html /nonexistent/dir/r.html off.data on.data
run diff --junit /nonexistent/dir/j.xml off.data on.data
run diff --per thp-zap.ops off.data on.data
run diff --score "'*.ops'" off.data on.data
run diff --score "''" -f json off.data on.data
run diff --per nosuch.metric off.data on.data
run diff off.data pf.data -- on.data
run diff -- off.data -- on.data
run diff off.data --
run diff --limit 0 -g off.data on.data
if test -e cm1.data && test -e cm2.data && test -e cm3.data; then
	for fmt in lkp json csv markdown; do
		run diff -f $fmt cm1.data cm2.data
		run diff -f $fmt --cost cm1.data cm2.data
		run diff -f $fmt --cost --all cm1.data cm3.data
		run diff -f $fmt -g cm1.data cm2.data
		run diff -f $fmt cm1.data cm2.data cm3.data
	done
	run diff --html @OUT@/c.html --summary @OUT@/s.md cm1.data cm2.data
	run diff -g --html @OUT@/c.html cm1.data cm2.data
	run diff --drop-run new:0 --cost cm1.data cm2.data
	run diff --per cost-mix.ops --cost cm1.data cm2.data
	run diff --fail-on "'cost.self.*.cost_mix_hot > 1%'" cm1.data cm2.data
	run diff --fail-on "'*.cost_mix_hot > 1%'" cm1.data cm2.data
	run diff --fail-on "'cost.self.*.cost_mix_hot > 1%'" off.data pf.data
fi
if test -e pfev.data; then
	run diff off.data pfev.data
	run diff --force off.data pfev.data
	run diff --force -f json -g off.data pfev.data
	run diff --force off.data on.data pfev.data
fi
if test -e fail.data; then
	run diff off.data fail.data
	run diff --allow-failed off.data fail.data
	run diff --allow-failed -f json fail.data off.data
	run diff off.data fail.data -- on.data
	run diff --drop-run base:4 off.data fail.data -- on.data
fi
for f in off.data pf.data one.data fail.data pfev.data tp.data; do
	test -e $f || continue
	run strip $f -o @OUT@/s.data
done
run strip nosuch.data -o @OUT@/s.data
run strip off.data on.data
run report off.data
run report --keys off.data
run report --tree off.data
run report --folded off.data
run report --json on.data
run report one.data
run report --html @OUT@/rep.html off.data
# export (pprof, JSON, folded) and flamegraph (one side, icicle, differential)
for f in off.data pf.data one.data tp.data; do
	test -e $f || continue
	run export -f pprof --no-gzip $f
	run export -f pprof -o @OUT@/p.pb.gz $f
	run export -f json $f
	run export -f folded $f
	run export -f folded --period --comm $f
	run flamegraph -o - $f
	run flamegraph -o - --icicle $f
	run flamegraph -o - --samples --min-width 0 $f
done
run export -f pprof --run 1 --no-gzip off.data
run export -f folded --run 9 off.data
run flamegraph -o - --run 2 --dso libc.so.6 off.data
run flamegraph -o - off.data on.data
run flamegraph -o - --width base --icicle off.data on.data
run flamegraph -o - one.data on.data
# every path of the differential graph drawn, and paths of two workloads (most on one side only)
run flamegraph -o - --min-width 0 off.data on.data
run flamegraph -o - --min-width 0 off.data pf.data
run diff -f json -g --all --limit 0 off.data pf.data
if test -e cm1.data && test -e cm2.data; then
	run flamegraph -o - --per-op cm1.data cm2.data
fi
# every command's --help and option errors, which the option tables make
for c in record stat report diff flamegraph export import resolve history push bisect strip help version; do
	run $c --help
	run $c --nosuch-option
done
run report --run -1 off.data
run diff --alpha nan off.data on.data
run diff --min-points 101 off.data on.data
run record --freq x -- true
run stat -e
# a store: push, history in each format, bisect judge
for f in off.data off2.data on.data; do
	test -e $f || continue
	run push --store @OUT@/st.db --commit c1 --time 1900000000 $f
done
run push --store @OUT@/st.db off.data
run push --store @OUT@/st.db --commit c1 --time notatime off.data
store=$work/st.db
i=0
for f in off.data off2.data on.data on.data off.data; do
	i=$((i + 1))
	"$old" push -q --store "$store" --commit c$i --machine m1 --benchmark b \
		--time $((1900000000 + i * 60)) $f 2>/dev/null
done
for fmt in text json csv markdown; do
	run history --store "$store" -f $fmt
	run history --store "$store" -f $fmt --window 2 "'perf-profile.self.*'"
done
run history --store "$store" -f json --penalty 3
run history --store "$store" -f json --penalty 3 --window 1
run history --store "$store" --report
run history --store "$store" --machine nosuch
run history --store "$store" -f xml
run history --store "$store" --html @OUT@/h.html
run history
run bisect judge --good off.data --bad on.data --key "'perf-profile.children.*.__split_huge_pmd'" off2.data
run bisect judge --good off.data --bad on.data --key "'perf-profile.children.*.__split_huge_pmd'" on.data
run bisect judge --good off.data --bad on.data --key "'nosuch.key'" on.data
run bisect judge --good off.data --bad on.data
run bisect frobnicate
run bisect next --state nosuch.state
echo "$n commands, $bad differ"
test "$bad" = 0
