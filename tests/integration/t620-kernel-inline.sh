#!/bin/bash
# t620-kernel-inline: record --vmlinux gives kernel frames their inline
# chains from a vmlinux's DWARF, and only when its build-id is the running
# kernel's.
#
# No machine of the test suite has its kernel's real vmlinux, so the test
# builds one: a first recording of the page-fault workload names its
# hottest kernel function F (in kallsyms, with its start and size, the
# distance to the next kallsyms address); a C file defines F as a call of
# an always_inline fake_mid() into an always_inline fake_leaf() whose body
# is ".skip SIZE-1" (all of F but its ret), linked at the same distance
# from _text as F's, with ld --build-id set to the running kernel's
# (read from /sys/kernel/notes by an awk parser of its own).  Its _text
# is deliberately not the running one, so the KASLR slide mmprof computes
# is not 0.  A second recording with --vmlinux must give the samples in F
# the chain addr2line -i -f prints for address - slide in the fake file.
# Then: a fake with another build-id (one warning line, recording goes on,
# no kernel inline frames), a missing --vmlinux (exit 2 before anything
# runs), and --inline alone on this machine (no vmlinux to find: silent).

. "$(dirname "$0")/lib.sh"
tap_setup t620
plan 14

q() { sqlite3 -batch -noheader "$@"; }

# --- the running kernel: build-id and _text --------------------------------
running=$(kernel_build_id)
ktext=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
[ ${#running} -ge 16 ] && [ -n "$ktext" ] && [ "$ktext" != 0000000000000000 ]
ok $? "running kernel: build-id $running, _text $ktext"

# --- pick the hottest kernel function -----------------------------------------
# every recording is of fixed work (4 iterations of 128 MiB, some 0.4 s of
# CPU), not of -s 1: at a load of 50 a second gets a twentieth of a CPU,
# and the first recording's hottest function, from a few samples, need not
# be sampled at all in the second
"$MMPROF" record -q -o "$tmp/first.mdata" -- "$wl/page-fault" -n 4 >/dev/null 2>"$tmp/first.err"
ok $? "first recording of page-fault"
read -r fn start size <<EOF
$(hottest_kernel_fn "$tmp/first.mdata")
EOF
[ -n "$fn" ]
ok $? "hottest kernel function: $fn at $start, $size bytes"

# --- the fake vmlinux ----------------------------------------------------------
base=ffffffff80000000
[ "$ktext" = "$base" ] && base=ffffffff81000000
off=$(printf '%x' $((0x$start - 0x$ktext)))
slide=$((0x$ktext - 0x$base))
wrong=$(printf '%s' "$running" | tr 0-9a-f 1-9a-f0)
mkdir "$tmp/wrong" &&
	fake_vmlinux "$tmp/wrong" "$fn" "$off" "$size" "$base" "$wrong" &&
	mv "$tmp/wrong/vmlinux" "$tmp/vmlinux-wrong" &&
	fake_vmlinux "$tmp" "$fn" "$off" "$size" "$base" "$running"
ok $? "fake vmlinux linked (slide $(printf '%x' $slide))"
want_at=$(printf '%016x' $((0x$base + 0x$off)))
got_at=$(nm "$tmp/vmlinux" | awk -v f="$fn" '$3 == f { print $1 }')
a2l=$(addr2line -i -f -e "$tmp/vmlinux" "0x$want_at" | sed -n 'p;n' | tr '\n' ' ')
[ "$got_at" = "$want_at" ] && [ "$(readelf -n "$tmp/vmlinux" | awk '/Build ID/ { print $3 }')" = "$running" ] &&
	[ "$a2l" = "fake_leaf fake_mid $fn " ]
ok $? "fake $fn at _text + $off, build-id as the kernel's, addr2line: $a2l"

# --- record with it -----------------------------------------------------------
"$MMPROF" record -q --vmlinux "$tmp/vmlinux" -o "$tmp/k.mdata" -- "$wl/page-fault" -n 4 \
	>/dev/null 2>"$tmp/k.err"
ok $? "record --vmlinux fake"
[ -z "$(drop_env_warnings "$tmp/k.err")" ]
ok $? "no warning for a matching vmlinux"
diag "$tmp/k.err"
[ "$(q "$tmp/k.mdata" "SELECT value FROM meta WHERE key = 'symbols.vmlinux'")" = "$(realpath "$tmp/vmlinux")" ]
ok $? "meta symbols.vmlinux names the file"

# each sampled leaf address in fn: the chain up the stack (inline frames, then
# the first real one) against addr2line at address - slide
q "$tmp/k.mdata" "
	SELECT printf('%016x', f.addr), min(nd.id), sum(c.samples) AS n
	FROM counts c JOIN nodes nd ON nd.id = c.node JOIN frames f ON f.id = nd.frame
	WHERE f.kernel = 1 AND printf('%016x', f.addr - f.sym_off) = '$start'
	   OR f.kernel = 1 AND f.inlined = 1 AND printf('%016x', f.addr) >= '$start'
	      AND printf('%016x', f.addr) < '$(printf '%016x' $((0x$start + size)))'
	GROUP BY f.addr ORDER BY n DESC LIMIT 8" >"$tmp/leaves"
checked=0 bad=0 full=0 total=0
while IFS='|' read -r addr node samples; do
	chain=$(q "$tmp/k.mdata" "
		WITH RECURSIVE up(id, depth) AS (
			SELECT $node, 0
			UNION ALL SELECT n.parent, up.depth + 1 FROM up JOIN nodes n ON n.id = up.id
			WHERE n.parent != 0 AND up.depth < 8)
		SELECT coalesce(s.s, '??'), coalesce(f.inlined, 0) FROM up
		JOIN nodes n ON n.id = up.id JOIN frames f ON f.id = n.frame
		LEFT JOIN strings s ON s.id = f.sym ORDER BY up.depth" |
		awk -F'|' '{ printf "%s ", $1 } $2 == 0 { exit }')
	want=$(addr2line -i -f -e "$tmp/vmlinux" "0x$(printf '%x' $((0x$addr - slide)))" | sed -n 'p;n' | tr '\n' ' ')
	checked=$((checked + 1))
	total=$((total + samples))
	if [ "$chain" != "$want" ]; then
		bad=$((bad + 1))
		echo "# $addr: mmprof '$chain', addr2line '$want'"
	elif [ "$chain" = "fake_leaf fake_mid $fn " ]; then
		full=$((full + samples))
	fi
done <"$tmp/leaves"
[ "$checked" -gt 0 ] && [ "$bad" -eq 0 ]
ok $? "$checked sampled addresses in $fn: chains match addr2line -i -f at address - slide"
[ "$full" -gt 0 ] && [ $((full * 2)) -ge "$total" ]
ok $? "$full of $total leaf samples in $fn carry fake_leaf, fake_mid, $fn"
"$MMPROF" report --tree --no-graph "$tmp/k.mdata" >"$tmp/k.tree"
grep -q '\[k\] fake_leaf (inlined)$' "$tmp/k.tree" && grep -q '\[k\] fake_mid (inlined)$' "$tmp/k.tree" &&
	! "$MMPROF" report --folded "$tmp/k.mdata" | grep -q ';fake_'
ok $? "tree shows the kernel inline chain; folded stacks end at the real function"

# --- a vmlinux of another kernel ------------------------------------------------
"$MMPROF" record -q --vmlinux "$tmp/vmlinux-wrong" -o "$tmp/w.mdata" -- "$wl/page-fault" -n 4 \
	>/dev/null 2>"$tmp/w.err"
rc=$?
drop_env_warnings "$tmp/w.err" >"$tmp/w.err1"
[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/w.err1")" -eq 1 ] &&
	grep -q "^mmprof: warning: --vmlinux $tmp/vmlinux-wrong: build-id $wrong does not match the running kernel's $running; kernel inline frames off$" "$tmp/w.err1" &&
	[ "$(q "$tmp/w.mdata" "SELECT count(*) FROM frames WHERE kernel = 1 AND inlined = 1")" -eq 0 ] &&
	[ "$(q "$tmp/w.mdata" "SELECT count(*) FROM frames WHERE kernel = 1")" -gt 0 ]
ok $? "wrong build-id: one warning, recording kept, no kernel inline frames (rc $rc)"
diag "$tmp/w.err"

# --- a missing one ----------------------------------------------------------------
"$MMPROF" record -q --vmlinux "$tmp/nonexistent" -o "$tmp/m.mdata" -- touch "$tmp/ran" \
	>/dev/null 2>"$tmp/m.err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$tmp/ran" ] && [ ! -e "$tmp/m.mdata" ] &&
	grep -q "^mmprof: --vmlinux '$tmp/nonexistent': cannot open: No such file or directory" "$tmp/m.err"
ok $? "missing --vmlinux: exit 2 before the command runs (rc $rc)"

# --- --inline alone: looks in the usual places, finds nothing here, says nothing ---
"$MMPROF" record -q --inline -o "$tmp/i.mdata" -- "$wl/page-fault" -n 4 >/dev/null 2>"$tmp/i.err"
rc=$?
found=$(q "$tmp/i.mdata" "SELECT value FROM meta WHERE key = 'symbols.vmlinux'")
if [ -z "$found" ]; then
	[ $rc -eq 0 ] && [ -z "$(drop_env_warnings "$tmp/i.err")" ] &&
		[ "$(q "$tmp/i.mdata" "SELECT count(*) FROM frames WHERE kernel = 1 AND inlined = 1")" -eq 0 ]
	ok $? "--inline without a vmlinux installed: silent, no kernel inline frames"
else
	# a machine with its kernel's debuginfo: then the chains come from it
	[ $rc -eq 0 ] && [ ! -s "$tmp/i.err" ]
	ok $? "--inline found the running kernel's vmlinux: $found"
fi

done_testing
