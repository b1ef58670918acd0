#!/usr/bin/env bash
# t930-color-progress: colour and progress only for a person at a terminal.
#   - record on a terminal (script(1) gives it a pty) shows its updating
#     progress line; into a pipe, or with -q, it does not;
#   - diff colours the change column on a terminal; never into a pipe,
#     never with NO_COLOR or --no-color; --color forces it into a pipe;
#     the text without escapes is the same in every case.
# Recordings are short runs of the bundled page-fault workload (no THP).

. "$(dirname "$0")/lib.sh"
wl=$MMPROF_BUILD/workloads/page-fault
tap_setup t930

esc=$'\033'
# on_tty CMD...: run CMD on a pseudo-terminal, its output (both streams) on stdout
on_tty() {
	TERM=xterm script -qec "$(printf '%q ' "$@")" /dev/null </dev/null
}

on_tty env -u NO_COLOR "$MMPROF" record -r 2 -o "$tmp/a.data" -- "$wl" --seconds 1 >"$tmp/rec.tty" 2>&1
ok $? "record on a terminal succeeds"
grep -q "${esc}\[Kmmprof: recording run 2/2" "$tmp/rec.tty"
ok $? "record on a terminal shows the progress line (run 2/2)"

"$MMPROF" record -r 2 -o "$tmp/b.data" -- "$wl" --seconds 1 >/dev/null 2>"$tmp/rec.pipe"
ok $? "record into a pipe succeeds"
! grep -q "$esc" "$tmp/rec.pipe" && ! grep -q "recording run" "$tmp/rec.pipe" && grep -q "wrote '" "$tmp/rec.pipe"
ok $? "record into a pipe: no progress line and no escapes, the summary stays"

on_tty "$MMPROF" record -q -o "$tmp/c.data" -- "$wl" --seconds 1 >"$tmp/rec.q" 2>&1
! grep -q "recording run" "$tmp/rec.q"
ok $? "record -q on a terminal shows no progress"

# diff against one run of two threads: with one run a side there is no
# test, rows past the thresholds are "changed?" and coloured; CPU use
# (page-fault.time.percent_of_cpu_this_job_got) doubles, so some row always is.
"$MMPROF" record -q -o "$tmp/d.data" -- "$wl" --seconds 1 --threads 2 >/dev/null 2>&1
args=(--all "$tmp/a.data" "$tmp/d.data")

"$MMPROF" diff "${args[@]}" >"$tmp/plain" 2>&1
ok $? "diff into a pipe succeeds"
! grep -q "$esc" "$tmp/plain"
ok $? "diff into a pipe has no escapes"

on_tty env -u NO_COLOR "$MMPROF" diff "${args[@]}" | tr -d '\r' >"$tmp/tty"
grep -qE "${esc}\[3[14]m[+-]" "$tmp/tty"
ok $? "diff on a terminal colours the change column"
sed "s/${esc}\[[0-9;]*m//g" "$tmp/tty" | cmp -s - "$tmp/plain"
ok $? "diff on a terminal: the text without escapes is the pipe's text"

on_tty env NO_COLOR=1 "$MMPROF" diff "${args[@]}" | tr -d '\r' >"$tmp/nocolor"
! grep -q "$esc" "$tmp/nocolor" && [ -s "$tmp/nocolor" ]
ok $? "NO_COLOR: no colour on a terminal"

on_tty env -u NO_COLOR "$MMPROF" diff --no-color "${args[@]}" | tr -d '\r' >"$tmp/nc"
! grep -q "$esc" "$tmp/nc" && [ -s "$tmp/nc" ]
ok $? "--no-color: no colour on a terminal"

"$MMPROF" diff --color "${args[@]}" | grep -qE "${esc}\[3[14]m[+-]"
ok $? "--color colours into a pipe"

"$MMPROF" diff --color "${args[@]}" >"$tmp/forced"
grep -q "^---------------- --------------------------- \$" "$tmp/forced" &&
	! grep -oE "${esc}\[31m." "$tmp/forced" | grep -vq "${esc}\[31m+" &&
	! grep -oE "${esc}\[34m." "$tmp/forced" | grep -vq "${esc}\[34m-"
ok $? "colours keep one meaning: red on rises (+), blue on falls (-), the header's rules plain (new's was blue)"

"$MMPROF" diff -f csv --color "${args[@]}" | grep -q "$esc"
[ $? -ne 0 ]
ok $? "machine formats (csv) are never coloured"

done_testing
