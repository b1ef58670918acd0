#!/bin/sh
# t612-dwarf-linkers: record --call-graph dwarf on one -O2
# -fomit-frame-pointer chain (main -> level1 -> mid -> leaf) linked by
# each linker and layout in use, and on a Rust program: each must unwind
# to main as perf's does.  lld puts every PT_LOAD a page above its file
# offset (p_vaddr 0x16c0 at offset 0x6c0), so a module placed at map
# start - pgoff (perf's formula, and mmprof's before) sits 0x1000 off,
# its CFI is not found and the stack stops at the leaf: lld PIE, a
# library linked by lld called from a gcc program, and rustc (which links
# with lld here) gave leaf-only stacks; bfd, gold and lld -no-pie, whose
# text vaddr equals its offset or which are not relocated, worked.
# perf --call-graph dwarf on the same binaries: the share of samples
# unwound to the chain, within 10 points of mmprof's.

. "$(dirname "$0")/lib.sh"
tap_setup t612
plan 24

cat >"$tmp/lib.c" <<'PROG'
volatile unsigned long sink;
__attribute__((noinline)) unsigned long leaf(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	return x;
}
__attribute__((noinline)) unsigned long mid(unsigned long n)
{
	unsigned long r = leaf(n);

	sink += r;
	return r + 1;
}
__attribute__((noinline)) unsigned long level1(unsigned long n)
{
	unsigned long r = mid(n);

	sink += r;
	return r ^ 3;
}
PROG
cat >"$tmp/main.c" <<'PROG'
#include <stdlib.h>
#include <time.h>
unsigned long level1(unsigned long n);
extern volatile unsigned long sink;
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink += level1(1000000);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
PROG
cat >"$tmp/chain.rs" <<'PROG'
use std::hint::black_box;
#[inline(never)]
fn leaf(n: u64) -> u64 {
    let mut x = 0u64;
    for i in 0..n {
        x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}
#[inline(never)]
fn mid(n: u64) -> u64 { black_box(leaf(n)) + 1 }
#[inline(never)]
fn level1(n: u64) -> u64 { black_box(mid(n)) ^ 3 }
fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let t = std::time::Instant::now();
    let mut s = 0u64;
    while t.elapsed().as_secs_f64() < secs {
        s = s.wrapping_add(level1(black_box(1000000)));
    }
    black_box(s);
}
PROG

flags="-O2 -g -fomit-frame-pointer"
cd "$tmp" || exit 2
# the executables, and how each was linked
# shellcheck disable=SC2086
{
	gcc $flags -o bfd-pie main.c lib.c &&
	gcc $flags -no-pie -o bfd-nopie main.c lib.c &&
	gcc $flags -fuse-ld=gold -o gold-pie main.c lib.c &&
	clang $flags -fuse-ld=lld -o lld-pie main.c lib.c &&
	clang $flags -fuse-ld=lld -no-pie -o lld-nopie main.c lib.c &&
	clang $flags -fPIC -shared -fuse-ld=lld -o liblld.so lib.c &&
	gcc $flags -o gcc-lldlib main.c -L. -llld -Wl,-rpath,"$tmp"
}
ok $? "the chain builds with bfd (PIE, -no-pie), gold, lld (PIE, -no-pie), and as an lld library for a gcc program"
rustc -O -g -o rust chain.rs 2>rustc.err
ok $? "the Rust chain builds (rustc -O -g, its default linker)"
diag rustc.err

# the layouts that matter: lld's text a page above its offset, bfd's not
text_gap() {	# FILE: p_vaddr - p_offset of the executable PT_LOAD, in hex
	set -- $(readelf -lW "$1" | awk '$1 == "LOAD" && / E / { print $2, $3; exit }')
	printf '%x\n' $(($2 - $1))
}
[ "$(text_gap lld-pie)" != 0 ] && [ "$(text_gap liblld.so)" != 0 ] && [ "$(text_gap rust)" != 0 ] &&
	[ "$(text_gap bfd-pie)" = 0 ]
ok $? "lld's text segments sit above their file offsets, bfd's do not (lld-pie +$(text_gap lld-pie), liblld.so +$(text_gap liblld.so), rust +$(text_gap rust), bfd-pie +$(text_gap bfd-pie))"

# share FILE PATTERN: percent of the samples whose folded stack matches PATTERN
share() {
	"$MMPROF" report --folded "$1" | awk -v pat="$2" '
		{ c = $NF; all += c; if ($0 ~ pat) hit += c }
		END { if (all) printf "%.1f\n", 100 * hit / all; else print 0 }'
}
# perf_share FILE PATTERN: the same from perf's folded call chains
perf_share() {
	perf report -i "$1" --stdio --no-children -g folded,0,caller,count 2>/dev/null |
		awk -v pat="$2" '$1 ~ /^[0-9]+$/ && NF >= 2 {
			c = $1; all += c; if ($0 ~ pat) hit += c }
		END { if (all) printf "%.1f\n", 100 * hit / all; else print 0 }'
}

c_chain='(^|;)main;level1;mid;leaf( |;|$)'
rust_chain='(^|;)main;.*chain::main;chain::level1;chain::mid;chain::leaf( |;|$)'
for prog in bfd-pie bfd-nopie gold-pie lld-pie lld-nopie gcc-lldlib rust; do
	pat=$c_chain
	[ $prog = rust ] && pat=$rust_chain
	"$MMPROF" record -q -e cpu-clock --call-graph dwarf -o "$prog.data" -- "./$prog" 0.5 \
		>"$prog.out" 2>&1
	ok $? "$prog: record --call-graph dwarf"
	diag "$prog.out"
	m=$(share "$prog.data" "$pat")
	awk -v v="$m" 'BEGIN { exit !(v > 80) }'
	ok $? "$prog: more than 80 % of the samples unwind to main;level1;mid;leaf ($m %)"
	if perf record -q -e cpu-clock --call-graph dwarf -o "$prog.pdata" "./$prog" 0.5 \
		>/dev/null 2>"$prog.perr"; then
		p=$(perf_share "$prog.pdata" "$pat")
	else
		diag "$prog.perr"
		p=
	fi
	echo "# $prog: unwound to the chain: mmprof $m %, perf ${p:-?} %"
	[ -n "$p" ] && awk -v a="$m" -v b="$p" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 10) }'
	ok $? "$prog: within 10 points of perf --call-graph dwarf (mmprof $m %, perf ${p:-none} %)"
done

done_testing
