#!/usr/bin/env bash
# t340-bisect: mmprof bisect finds the commit that made one function
# slower, in a git repository made here: 32 commits of the options of the
# bundled cost-mix workload (a file 'params'), commit 20 raising
# cost_mix_hot's rounds per op from 1000 to 4000 (its share of the
# profile from about 10 % to about 31 %, far past the machine's 10-15 %
# spread), commit 9 one whose "build" fails.  Judged on the share, which
# a loaded machine does not move (the ops per second it does), over a
# fixed amount of work a run (-n, about 0.3 s of CPU and 600 samples at
# -F 1999): runs of a fixed time took 40 samples each under make check's
# load, a spread of 7 points, and a good commit's 10 runs stayed undecided.
#   - judge: 0 good, 1 bad (2 runs, then the runs it asks for), 125 for a
#     missing or empty candidate, 3 for "need more runs" (one run never
#     decides alone), 128 and one line for a key that matches nothing;
#   - git bisect run mmprof bisect run ... names commit 20 (at 1 % error
#     rates a step: git believes every verdict);
#   - a commit whose build fails is skipped (125);
#   - the resumable flow, start / next / judge in separate processes,
#     names it too, with one disturbed run at its first step, and prints
#     the answer: runs against 3 a step, the diff against the parent;
#   - bisect run from a state (--range, ends as STORE:COMMIT) names it;
#   - an edited or foreign state file is refused with one line.
. "$(dirname "$0")/lib.sh"
tap_setup t340
command -v git >/dev/null || { echo "1..0 # SKIP git is not installed"; exit 0; }

repo=$tmp/repo
key='perf-profile.self.*.cost_mix_hot'
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
mkdir -p "$repo" && cd "$repo" && git init -q . || exit 2
for i in $(seq 0 32); do
	hot=1000
	[ "$i" -ge 20 ] && hot=4000
	[ "$i" -eq 9 ] && hot=oops
	printf 'hot=%s\nstep=%s\n' "$hot" "$i" >params
	git add params && git commit -q -m "step $i" || exit 2
	[ "$i" -eq 20 ] && git rev-parse HEAD >"$tmp/culprit"
done
culprit=$(cat "$tmp/culprit")
good=$(git rev-list --reverse HEAD | head -1)
bad=$(git rev-parse HEAD)

# The benchmark: "build" (read params; fails on a bad one) and record.
cat >"$tmp/bench.sh" <<EOS
#!/bin/sh
[ -n "\$MMPROF_BISECT_COMMIT" ] && echo "\$MMPROF_BISECT_COMMIT \$MMPROF_BISECT_BATCH" >>"$tmp/batches"
. ./params
[ "\$hot" -gt 0 ] 2>/dev/null || exit 125
exec "$MMPROF" record -q -F 1999 -r "\${MMPROF_BISECT_RUNS:-3}" -o "\${MMPROF_BISECT_OUTPUT:-out.data}" \
	-- "$wl/cost-mix" --hot "\$hot" -n 12000 >/dev/null
EOS
chmod +x "$tmp/bench.sh"

rec() {	# rec COMMIT OUT RUNS
	git checkout -q "$1" && MMPROF_BISECT_RUNS=$3 MMPROF_BISECT_OUTPUT=$2 "$tmp/bench.sh"
}
rec "$good" "$tmp/good.data" 3; ok $? "record the good end, 3 runs"
rec "$bad" "$tmp/bad.data" 3; ok $? "record the bad end, 3 runs"
rec "$good" "$tmp/cand-one.data" 1

J() { "$MMPROF" bisect judge --good "$tmp/good.data" --bad "$tmp/bad.data" --key "$key" "$@"; }
# judge_until COMMIT NAME: 2 runs, then the runs judge asks for, as bisect run does (at most 4 batches)
judge_until() {
	files=
	for b in 1 2 3 4; do
		rec "$1" "$tmp/$2-$b.data" "${more:-2}" >/dev/null
		files="$files $tmp/$2-$b.data"
		J $files >"$tmp/out"; rc=$?
		[ $rc -eq 3 ] || break
		more=$(sed -n 's/.*record \([0-9]*\) more run.*/\1/p' "$tmp/out")
	done
	more=
	return $rc
}
judge_until "$bad" cand-bad; rc=$?
[ $rc -eq 1 ] && grep -q "^bisect: bad: [0-9]* runs" "$tmp/out"
ok $? "judge: a bad candidate exits 1 ($(head -1 "$tmp/out"))"
judge_until "$good" cand-good; rc=$?
[ $rc -eq 0 ] && grep -q "^bisect: good: [0-9]* runs" "$tmp/out"
ok $? "judge: a good candidate exits 0 ($(head -1 "$tmp/out"))"
J "$tmp/cand-one.data" >"$tmp/out"; rc=$?
[ $rc -eq 3 ] && grep -q "record [0-9] more run" "$tmp/out"
ok $? "judge: one run never decides alone: exit 3, more runs asked (exit $rc)"
J "$tmp/missing.data" >"$tmp/out"; rc=$?
[ $rc -eq 125 ] && grep -q "missing" "$tmp/out"
ok $? "judge: a missing candidate is a skip, 125 (exit $rc)"
: >"$tmp/empty.data"
J "$tmp/empty.data" >/dev/null; rc=$?
[ $rc -eq 125 ]
ok $? "judge: an empty candidate is a skip, 125 (exit $rc)"
"$MMPROF" bisect judge --good "$tmp/good.data" --bad "$tmp/bad.data" --key 'nosuch.key' \
	"$tmp/cand-bad-1.data" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 128 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no key matches --key" "$tmp/err"
ok $? "judge: a key that matches nothing: exit 128 (git bisect run stops), one line: $(cat "$tmp/err")"

# git bisect run, mmprof deciding each step with adaptive runs
git checkout -q "$bad"
git bisect start "$bad" "$good" >/dev/null
git bisect run "$MMPROF" bisect run --good "$tmp/good.data" --bad "$tmp/bad.data" --key "$key" --alpha 0.01 --beta 0.01 \
	-- "$tmp/bench.sh" >"$tmp/gitrun" 2>&1
grep -q "^$culprit is the first bad commit" "$tmp/gitrun"; rc=$?
ok $rc "git bisect run mmprof bisect run names the commit that made cost_mix_hot slower"
[ $rc -eq 0 ] || diag "$tmp/gitrun"
runs=$(grep -o 'after [0-9]* runs' "$tmp/gitrun" | awk '{ s += $2 } END { print s + 0 }')
steps=$(grep -c 'after [0-9]* runs' "$tmp/gitrun")
[ "$steps" -ge 4 ] && grep -q "^bisect: batch 1: 2 runs recorded" "$tmp/gitrun" && grep -q "(the sequential test decided)" "$tmp/gitrun"
ok $? "each step says its runs and why it stopped: $steps steps, $runs runs (3 a step: $((3 * steps)))"
git bisect reset -q >/dev/null 2>&1

# the failed build
git checkout -q "$(git rev-list --reverse HEAD | sed -n 10p)"
"$MMPROF" bisect run --good "$tmp/good.data" --bad "$tmp/bad.data" --key "$key" -- "$tmp/bench.sh" \
	>"$tmp/out" 2>&1; rc=$?
[ $rc -eq 125 ] && grep -q "skip: COMMAND exited 125" "$tmp/out"
ok $? "a commit whose build fails is skipped: 125 (exit $rc)"
git checkout -q "$bad"

# the resumable flow: each command a process of its own, state in a file
st=$tmp/state
git rev-list --reverse "$good..$bad" >"$tmp/commits"
"$MMPROF" bisect start --state "$st" --good "$tmp/good.data" --bad "$tmp/bad.data" --key "$key" \
	--commits "$tmp/commits" >"$tmp/out"; ok $? "start from a commits file"
steps=0 disturbed=0 found=
while [ $steps -lt 30 ]; do
	"$MMPROF" bisect next --state "$st" >"$tmp/next" || break
	if grep -q '^done ' "$tmp/next"; then
		found=$(awk '/^done /{ print $2 }' "$tmp/next")
		break
	fi
	read -r _ commit runs <"$tmp/next"
	git checkout -q "$commit"
	if [ $disturbed -eq 0 ]; then
		# one disturbed run: the other end's code, as a run of the wrong kernel would be
		if grep -q hot=4000 params; then sed -i 's/hot=4000/hot=1000/' params
		else sed -i 's/hot=1000/hot=4000/' params; fi
		MMPROF_BISECT_RUNS=1 MMPROF_BISECT_OUTPUT=$tmp/step$steps.data "$tmp/bench.sh"
		git checkout -q params
		disturbed=1
	else
		MMPROF_BISECT_RUNS=$runs MMPROF_BISECT_OUTPUT=$tmp/step$steps.data "$tmp/bench.sh"
	fi
	"$MMPROF" bisect judge --state "$st" "$tmp/step$steps.data" >>"$tmp/flow"
	rc=$?
	case $rc in 0|1|3|125) ;; *) echo "# judge exited $rc"; break ;; esac
	steps=$((steps + 1))
done
[ "$found" = "$culprit" ]; rc=$?
ok $rc "next/judge in separate processes, one run disturbed, find it ($steps recordings; found ${found:-nothing})"
[ $rc -eq 0 ] || diag "$tmp/flow" "$tmp/next"
grep -q "first bad commit $culprit" "$tmp/next" && grep -q "a bisection of 3 runs a step spends 15" "$tmp/next"
ok $? "the answer names it and compares the runs with a 3-runs-a-step bisection"
grep -q "cost_mix_hot" "$tmp/next" && grep -q "the first bad commit against its parent" "$tmp/next"
ok $? "and shows its diff against its parent, cost_mix_hot among the rows"
grep -q "^git bisect \(good\|bad\) " "$tmp/flow"
ok $? "judge prints git bisect's good/bad lines"

# the whole search in one process, from a --range state, the ends from a results store
"$MMPROF" push -q --store "$tmp/store.db" --commit "$good" "$tmp/good.data" &&
"$MMPROF" push -q --store "$tmp/store.db" --commit "$bad" "$tmp/bad.data"
ok $? "push the ends into a results store"
"$MMPROF" bisect start --state "$tmp/st3" --good "$tmp/store.db:$good" --bad "$tmp/store.db:$bad" \
	--key "$key" --range "$good..$bad" >/dev/null &&
"$MMPROF" bisect run --state "$tmp/st3" -- sh -c 'git checkout -q "$MMPROF_BISECT_COMMIT" && exec "$0"' \
	"$tmp/bench.sh" >"$tmp/run3" 2>&1
rc=$?
git checkout -q "$bad"
[ $rc -eq 0 ] && grep -q "^done $culprit " "$tmp/run3"; found=$?
ok $found "bisect run from the state, STORE:COMMIT ends, --range: finds it (exit $rc)"
[ $found -eq 0 ] || diag "$tmp/run3"
grep -q "^bisect: recording [0-9a-f]*: 2 runs" "$tmp/run3" && [ -d "$tmp/st3.d" ]
ok $? "it says what it records, and keeps the recordings beside the state"
# each commit's judgement starts at batch 1 and counts up within it
awk '$2 != 1 && !($1 == c && $2 == b + 1) { bad = 1 } { c = $1; b = $2 } END { exit bad || NR < 4 }' \
	"$tmp/batches"
ok $? "COMMAND's MMPROF_BISECT_BATCH is 1 at each commit's first batch: $(awk '{ print $2 }' "$tmp/batches" | tr '\n' ' ')"

cp "$st" "$tmp/st2"
sed -i 's/^step \([0-9]*\) bad/step \1 good/' "$tmp/st2"
"$MMPROF" bisect next --state "$tmp/st2" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "is corrupt" "$tmp/err"
ok $? "an edited state is refused with one line (exit $rc: $(cat "$tmp/err"))"
"$MMPROF" bisect next --state "$tmp/commits" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "is not an mmprof bisect state" "$tmp/err"
ok $? "a foreign file is refused with one line (exit $rc)"
"$MMPROF" bisect frobnicate >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 128 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]
ok $? "an unknown subcommand: one line"
done_testing
