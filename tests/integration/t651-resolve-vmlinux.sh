#!/bin/bash
# t651-resolve-vmlinux: a vmlinux found after the recording (issue 18
# point 2): `mmprof resolve --vmlinux PATH FILE` gives kernel frames their
# inline chains and names kernel frames kallsyms left unnamed, as record
# --vmlinux would have; only a vmlinux of the recorded kernel (its
# build-id, kept in meta kernel_build_id) is taken, placed by the _text
# address record kept (kernel_ref_reloc_sym: perf's ref_reloc_sym and
# relocation rule, slide = recorded _text - the vmlinux's _text).
#
# No machine of the suite has its kernel's vmlinux: as t620, the test
# builds one (lib.sh's fake_vmlinux) defining the hottest kernel function
# of a recording as inlined fake_mid and fake_leaf, at the same distance
# from a _text that is not the running one (a slide that is not 0).
# Then: the chains match addr2line at address - slide, folded stacks and
# the LKP keys do not change (inline frames are skipped there), a second
# resolve adds nothing, the separate debuginfo gives the same, frames
# made unnamed are named with their offsets (and report --unresolved says
# a vmlinux would name them), and a vmlinux of another build-id, a file
# without kernel_build_id or without kernel_ref_reloc_sym (strip drops
# it: it is the KASLR base), and a missing path are refused (exit 2, file
# unchanged).

. "$(dirname "$0")/lib.sh"
tap_setup t651
plan 17

q() { sqlite3 -batch -noheader "$@"; }

running=$(kernel_build_id)
ktext=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
# fixed work (4 iterations of 128 MiB, some 0.4 s of CPU), not -s 1: at a
# load of 50 a second gets a twentieth of a CPU and a few samples
"$MMPROF" record -q -o "$tmp/a.mdata" -- "$wl/page-fault" -n 4 >/dev/null 2>"$tmp/a.err"
rc=$?
[ $rc -eq 0 ] && [ "$(q "$tmp/a.mdata" "SELECT value FROM meta WHERE key = 'kernel_build_id'")" = "$running" ] &&
	[ "$(q "$tmp/a.mdata" "SELECT value FROM meta WHERE key = 'kernel_ref_reloc_sym'")" = "_text 0x$ktext" ]
ok $? "record keeps the kernel's build-id $running and _text 0x$ktext in meta (rc $rc)"
diag "$tmp/a.err"

read -r fn start size <<EOF
$(hottest_kernel_fn "$tmp/a.mdata")
EOF
base=ffffffff80000000
[ "$ktext" = "$base" ] && base=ffffffff81000000
off=$(printf '%x' $((0x$start - 0x$ktext)))
slide=$((0x$ktext - 0x$base))
wrong=$(printf '%s' "$running" | tr 0-9a-f 1-9a-f0)
[ -n "$fn" ] && mkdir "$tmp/wrong" &&
	fake_vmlinux "$tmp/wrong" "$fn" "$off" "$size" "$base" "$wrong" &&
	fake_vmlinux "$tmp" "$fn" "$off" "$size" "$base" "$running"
ok $? "fake vmlinux: $fn ($size bytes) at _text + $off, slide $(printf '%x' $slide)"

# --- resolve gives the inline chains record --vmlinux would have ---------------
cp "$tmp/a.mdata" "$tmp/k.mdata"
"$MMPROF" report --keys "$tmp/a.mdata" >"$tmp/a.keys"
"$MMPROF" report --folded "$tmp/a.mdata" >"$tmp/a.folded"
"$MMPROF" resolve --vmlinux "$tmp/vmlinux" "$tmp/k.mdata" 2>"$tmp/k.err"
rc=$?
[ $rc -eq 0 ] &&
	grep -q "^mmprof: '$tmp/k.mdata': vmlinux $(realpath "$tmp/vmlinux") (build-id $running, the recorded kernel's; slide 0x$(printf '%x' $slide)): every kernel frame had a name; inline chains for [1-9][0-9]* frames ([1-9][0-9]* inline frames, [1-9][0-9]* samples at their IP)$" "$tmp/k.err" &&
	grep -q "^mmprof: wrote '$tmp/k.mdata'" "$tmp/k.err"
ok $? "resolve --vmlinux: says what it added (rc $rc)"
diag "$tmp/k.err"
[ "$(q "$tmp/a.mdata" "SELECT count(*) FROM frames WHERE kernel = 1 AND inlined = 1")" -eq 0 ] &&
	[ "$(q "$tmp/k.mdata" "SELECT count(DISTINCT sym) FROM frames WHERE kernel = 1 AND inlined = 1 AND
	     sym IN (SELECT id FROM strings WHERE s IN ('fake_leaf', 'fake_mid'))")" -eq 2 ] &&
	[ "$(q "$tmp/k.mdata" "SELECT value FROM meta WHERE key = 'symbols.vmlinux'")" = "$(realpath "$tmp/vmlinux")" ]
ok $? "no kernel inline frames before; fake_leaf and fake_mid after, meta symbols.vmlinux set"

# each sampled address in fn: its chain up to the first real frame against
# addr2line -i -f at address - slide in the fake file
q "$tmp/k.mdata" "
	SELECT printf('%016x', f.addr), min(nd.id), sum(c.samples) AS n
	FROM counts c JOIN nodes nd ON nd.id = c.node JOIN frames f ON f.id = nd.frame
	WHERE f.kernel = 1 AND printf('%016x', f.addr) >= '$start'
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
[ "$checked" -gt 0 ] && [ "$bad" -eq 0 ] && [ "$full" -gt 0 ] && [ $((full * 2)) -ge "$total" ]
ok $? "$checked sampled addresses in $fn: chains as addr2line -i -f at address - slide ($full of $total samples: fake_leaf fake_mid $fn)"

"$MMPROF" report --tree --no-graph "$tmp/k.mdata" >"$tmp/k.tree"
"$MMPROF" report --keys "$tmp/k.mdata" >"$tmp/k.keys"
"$MMPROF" report --folded "$tmp/k.mdata" >"$tmp/k.folded"
grep -q '\[k\] fake_leaf (inlined)$' "$tmp/k.tree" && cmp -s "$tmp/a.keys" "$tmp/k.keys" &&
	cmp -s "$tmp/a.folded" "$tmp/k.folded" &&
	[ "$(q "$tmp/a.mdata" "SELECT sum(samples) FROM counts")" = "$(q "$tmp/k.mdata" "SELECT sum(samples) FROM counts")" ]
ok $? "tree shows the inline chain; keys, folded stacks and sample total unchanged"

# the kernel's separate debuginfo (vmlinux-REL.debug: no code, .symtab and DWARF)
cp "$tmp/a.mdata" "$tmp/g.mdata"
objcopy --only-keep-debug "$tmp/vmlinux" "$tmp/vmlinux.debug" &&
	"$MMPROF" resolve --vmlinux "$tmp/vmlinux.debug" "$tmp/g.mdata" 2>/dev/null &&
	"$MMPROF" report --tree --no-graph "$tmp/g.mdata" | cmp -s - "$tmp/k.tree"
ok $? "the separate debuginfo (objcopy --only-keep-debug) gives the same tree"

cp "$tmp/k.mdata" "$tmp/k2.mdata"
"$MMPROF" resolve --vmlinux "$tmp/vmlinux" "$tmp/k2.mdata" 2>"$tmp/k2.err"
rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/k.mdata" "$tmp/k2.mdata" &&
	grep -q "inline chains there already" "$tmp/k2.err" && grep -q "nothing written" "$tmp/k2.err"
ok $? "a second resolve adds nothing and writes nothing (rc $rc)"

# --- kernel frames without a name get the vmlinux's --------------------------
cp "$tmp/a.mdata" "$tmp/u.mdata"
to_format2 "$tmp/u.mdata"
q "$tmp/u.mdata" "UPDATE frames SET sym = NULL, sym_off = 0 WHERE kernel = 1 AND
	sym = (SELECT id FROM strings WHERE s = '$fn')"
unnamed=$(q "$tmp/u.mdata" "SELECT count(*) FROM frames WHERE kernel = 1 AND sym IS NULL AND
	printf('%016x', addr) >= '$start' AND printf('%016x', addr) < '$(printf '%016x' $((0x$start + size)))'")
"$MMPROF" report --folded "$tmp/u.mdata" >"$tmp/u.folded" 2>/dev/null
"$MMPROF" report --unresolved "$tmp/u.mdata" >"$tmp/u.unres" 2>&1
grep -q "\[kernel.kallsyms\]: kernel address outside kallsyms (.*); a vmlinux of the kernel recorded names them: mmprof resolve --vmlinux PATH FILE$" "$tmp/u.unres"
ok $? "report --unresolved says a vmlinux found later names the unnamed kernel frames"
"$MMPROF" resolve --vmlinux "$tmp/vmlinux" "$tmp/u.mdata" 2>"$tmp/u.err"
rc=$?
[ $rc -eq 0 ] && [ "$unnamed" -gt 0 ] && ! grep -q ";$fn\$" "$tmp/u.folded" &&
	grep -q "named $unnamed of $unnamed kernel frames without a name ([1-9][0-9]* of [1-9][0-9]* samples)" "$tmp/u.err"
ok $? "$unnamed frames of $fn made unnamed: resolve names all (rc $rc)"
diag "$tmp/u.err"
[ "$(q "$tmp/u.mdata" "SELECT count(*) FROM frames WHERE kernel = 1 AND inlined = 0 AND
	printf('%016x', addr) >= '$start' AND printf('%016x', addr) < '$(printf '%016x' $((0x$start + size)))' AND
	(sym IS NOT (SELECT id FROM strings WHERE s = '$fn') OR printf('%016x', addr - sym_off) != '$start')")" -eq 0 ] &&
	"$MMPROF" report --folded "$tmp/u.mdata" | cmp -s - "$tmp/a.folded"
ok $? "named $fn at the right offsets: folded stacks as recorded"

# --- refused: another kernel, no build-id kept, no _text kept, no file ------
cp "$tmp/a.mdata" "$tmp/w.mdata"
"$MMPROF" resolve --vmlinux "$tmp/wrong/vmlinux" "$tmp/w.mdata" 2>"$tmp/w.err"
rc=$?
[ $rc -eq 2 ] && cmp -s "$tmp/a.mdata" "$tmp/w.mdata" &&
	grep -q "^mmprof: '$tmp/w.mdata': --vmlinux '$tmp/wrong/vmlinux': build-id $wrong does not match the recorded kernel's $running; nothing written$" "$tmp/w.err"
ok $? "another build-id: refused, exit 2, file unchanged (rc $rc)"
diag "$tmp/w.err"

cp "$tmp/a.mdata" "$tmp/o.mdata"
# (renamed, not deleted: meta's seq stays dense; readers ignore unknown keys)
q "$tmp/o.mdata" "UPDATE meta SET key = 'old_kernel_build_id' WHERE key = 'kernel_build_id'"
cp "$tmp/o.mdata" "$tmp/o0.mdata"
"$MMPROF" resolve --vmlinux "$tmp/vmlinux" "$tmp/o.mdata" 2>"$tmp/o.err"
rc=$?
[ $rc -eq 2 ] && cmp -s "$tmp/o0.mdata" "$tmp/o.mdata" &&
	grep -q "the file keeps no build-id of its kernel (meta kernel_build_id.*cannot tell the vmlinux is its kernel's; nothing written$" "$tmp/o.err"
ok $? "a file without kernel_build_id (older mmprof): refused, exit 2 (rc $rc)"
diag "$tmp/o.err"

cp "$tmp/a.mdata" "$tmp/h.mdata"
q "$tmp/h.mdata" "UPDATE meta SET key = 'old_ref' WHERE key = 'kernel_ref_reloc_sym'"
"$MMPROF" resolve --vmlinux "$tmp/vmlinux" "$tmp/h.mdata" 2>"$tmp/h.err"
rc=$?
[ $rc -eq 2 ] && grep -q "kallsyms hid addresses while recording, or mmprof strip removed it): cannot place a vmlinux under KASLR; nothing written$" "$tmp/h.err"
ok $? "a file without kernel_ref_reloc_sym: refused, exit 2 (rc $rc)"

# strip: _text's address is the KASLR base, it goes (and the file may be 0644)
"$MMPROF" strip -o "$tmp/s.mdata" "$tmp/a.mdata" 2>/dev/null &&
	[ -z "$(q "$tmp/s.mdata" "SELECT value FROM meta WHERE key = 'kernel_ref_reloc_sym'")" ] &&
	[ "$(q "$tmp/s.mdata" "SELECT value FROM meta WHERE key = 'kernel_build_id'")" = "$running" ] &&
	[ "$(stat -c %a "$tmp/a.mdata")" = 600 ] && [ "$(stat -c %a "$tmp/s.mdata")" != 600 ] &&
	! "$MMPROF" resolve --vmlinux "$tmp/vmlinux" "$tmp/s.mdata" 2>"$tmp/s.err" &&
	grep -q "kallsyms hid addresses while recording, or mmprof strip removed it): cannot place" "$tmp/s.err"
ok $? "strip drops kernel_ref_reloc_sym (the KASLR base), keeps the build-id; resolve then refuses, naming strip as a cause"
diag "$tmp/s.err"

"$MMPROF" resolve --vmlinux "$tmp/nonexistent" "$tmp/a.mdata" 2>"$tmp/n.err"
rc=$?
[ $rc -eq 2 ] && grep -q "^mmprof: '$tmp/a.mdata': --vmlinux '$tmp/nonexistent': cannot open: No such file or directory; nothing written$" "$tmp/n.err"
ok $? "a missing vmlinux: exit 2 (rc $rc)"

# --dry-run: says it, writes nothing
cp "$tmp/a.mdata" "$tmp/d.mdata"
"$MMPROF" resolve -n --vmlinux "$tmp/vmlinux" "$tmp/d.mdata" 2>"$tmp/d.err"
rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/a.mdata" "$tmp/d.mdata" && grep -q "inline chains for [1-9]" "$tmp/d.err" &&
	grep -q "nothing written (--dry-run)" "$tmp/d.err"
ok $? "--dry-run with --vmlinux: says, writes nothing (rc $rc)"

done_testing
