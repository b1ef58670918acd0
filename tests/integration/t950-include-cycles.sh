#!/usr/bin/env bash
# t950-include-cycles: no cycle between mmprof's files
# (src/scripts/include-cycles.sh), and the checker sees one when it is there.
#   - the tree's headers include each other in one direction, and its
#     modules (folders of src/) and files call each other in one direction,
#     read from the objects of the build under test;
#   - planted in a scratch tree, a header cycle, a module cycle and a file
#     cycle are each reported, by name, with status 1, and so is a loop
#     of files within one module; two files of one module may call each
#     other only where an internal header both include says "A.c and B.c
#     are one unit";
#   - the key grammar has one owner: a family's prefix compared outside
#     src/keys/keykind.c is reported by file and line, with status 1;
#   - strings have one interner: a string's text hashed outside src/lib
#     (a table of names of its own) is reported by file and line;
#   - modules call down the layers the script lists (architecture.md's
#     table): a call up a row, or a module in no row, is reported;
#   - the script's layers are architecture.md's table, row for row: a
#     table whose rows differ from them is reported;
#   - libperf has one owner, src/perf/: a libperf header included, or a
#     libperf function called, by a file of another module is reported
#     by file (and line), with status 1; perfsession.h may hand up the
#     records' layouts (<perf/event.h>) and nothing else.

. "$(dirname "$0")/lib.sh"
tap_setup t950
check=$here/src/scripts/include-cycles.sh

out=$("$check" --calls "$MMPROF_BUILD" "$here" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ]
ok $? "no include, module or file cycle in the tree, no key grammar outside keykind.c, no string table outside strintern (status $rc)${out:+: $out}"

# put FILE TEXT: a file of the scratch tree
put() {
	mkdir -p "$(dirname "$tmp/$1")"
	printf '%s\n' "$2" >"$tmp/$1"
}
# obj SRC: SRC's object where the Makefile puts it, in $tmp/build
obj() {
	mkdir -p "$(dirname "$tmp/build/${1%.c}.o")"
	${CC:-cc} -I"$tmp/include" -c -o "$tmp/build/${1%.c}.o" "$tmp/$1"
}

put include/mmprof/a.h '#include "mmprof/b.h"'
put include/mmprof/b.h '#include "mmprof/c.h"'
put include/mmprof/c.h '#include "mmprof/a.h"'
out=$("$check" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^include cycle: .*include/mmprof/a.h' <<<"$out" &&
	grep -q 'include/mmprof/b.h' <<<"$out" && grep -q 'include/mmprof/c.h' <<<"$out"
ok $? "a planted header cycle a.h -> b.h -> c.h -> a.h is reported (status $rc: $out)"

put include/mmprof/c.h '/* no include */'
put src/x/x.c 'void y(void); void x(void); void x(void) { y(); }'
put src/y/y.c 'void x(void); void y(void); void y(void) { x(); }'
obj src/x/x.c && obj src/y/y.c
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^module cycle: ' <<<"$out" && grep -q '\bx\b' <<<"$out" &&
	grep -q '\by\b' <<<"$out" && ! grep -q '^include cycle' <<<"$out"
ok $? "a planted module cycle x -> y -> x is reported, the headers are clean again (status $rc: $out)"

rm -rf "$tmp/src" "$tmp/build"
put src/z/a.c 'void b(void); void a(void); void a(void) { b(); }'
put src/z/b.c 'void a(void); void b(void); void b(void) { a(); }'
obj src/z/a.c && obj src/z/b.c
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^file cycle: .*src/z/a.c' <<<"$out" && grep -q 'src/z/b.c' <<<"$out"
ok $? "a planted file cycle a.c -> b.c -> a.c in one module is reported (status $rc: $out)"

put src/z/z-int.h '/* z: internal */'
put src/z/a.c '#include "z-int.h"
void b(void); void a(void); void a(void) { b(); }'
put src/z/b.c '#include "z-int.h"
void a(void); void b(void); void b(void) { a(); }'
obj src/z/a.c && obj src/z/b.c
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^file cycle: .*src/z/a.c' <<<"$out" && grep -q 'src/z/b.c' <<<"$out"
ok $? "two files of one module sharing its internal header, calling each other, are a cycle while the header does not call them one unit (status $rc: $out)"

put src/z/z-int.h '/*
 * z: internal.  b.c and a.c are one
 * unit: each needs the other.
 */'
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ]
ok $? "the pair may call each other once the header they share says \"b.c and a.c are one unit\", across its lines (status $rc${out:+: $out})"

put src/z/c.c '#include "z-int.h"
void a(void); void c(void); void c(void) { a(); }'
put src/z/b.c '#include "z-int.h"
void c(void); void b(void); void b(void) { c(); }'
put src/z/a.c '#include "z-int.h"
void b(void); void a(void); void a(void) { b(); }'
put src/z/z-int.h '/* z: internal.  a.c and b.c are one unit, b.c and c.c are one unit. */'
obj src/z/a.c && obj src/z/b.c && obj src/z/c.c
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^file cycle: ' <<<"$out" && grep -q 'src/z/c.c' <<<"$out"
ok $? "a loop of three files of one module, a -> b -> c -> a, is reported whatever the header says of pairs (status $rc: $out)"
rm -f "$tmp/src/z/c.c" "$tmp/build/src/z/c.o"

rm -f "$tmp/build/src/z/b.o"
"$check" --calls "$tmp/build" "$tmp" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'src/z/b.o: build first' "$tmp/err"
ok $? "a missing object is a build problem (status 2), not a pass (status $rc)"

rm -rf "$tmp/src" "$tmp/build"
put src/keys/keykind.c 'int is_cost(const char *k) { return !strncmp(k, "cost.", 5); }'
out=$("$check" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ]
ok $? "the owner, src/keys/keykind.c, may read a family's prefix (status $rc${out:+: $out})"

put src/diff/x.c 'int gone(const char *k) { return !strncmp(k, "perf-profile.self.", 18); }'
out=$("$check" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^grammar: src/diff/x.c:1:' <<<"$out" && ! grep -q 'keykind.c' <<<"$out"
ok $? "a family's prefix compared in another file is reported by file and line (status $rc: $out)"

rm -rf "$tmp/src" "$tmp/build"
put src/lib/names.c 'unsigned long h(const char *s) { return hash__bytes(s, strlen(s)); }'
out=$("$check" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ]
ok $? "lib/ may hash a string's text (status $rc${out:+: $out})"

put src/keys/names.c 'unsigned long h(const char *s) { return hash__bytes(s, strlen(s)); }'
out=$("$check" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^intern: src/keys/names.c:1:.*(use strintern.h)' <<<"$out" && ! grep -q 'src/lib' <<<"$out"
ok $? "a string's text hashed in another module is reported by file and line (status $rc: $out)"

rm -rf "$tmp/src" "$tmp/build"
put src/keys/k.c 'void l(void); void k(void); void k(void) { l(); }'
put src/lib/l.c 'void l(void); void l(void) { }'
obj src/keys/k.c && obj src/lib/l.c
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ]
ok $? "keys calling lib goes down the layers (status $rc${out:+: $out})"

put src/lib/l.c 'void k(void); void l(void); void l(void) { }
void up(void); void up(void) { k(); }'
obj src/lib/l.c
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^layer: lib -> keys (lib is below keys' <<<"$out"
ok $? "lib calling keys, a row up, is reported (status $rc: $out)"

put src/newmod/n.c 'void l(void); void n(void); void n(void) { l(); }'
obj src/newmod/n.c
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^layer: newmod is in no row of LAYERS' <<<"$out"
ok $? "a module in no row of the layers is reported (status $rc: $out)"

rm -rf "$tmp/src" "$tmp/build"
put src/perf/p.c '#include <perf/evsel.h>
int p(void); int p(void) { return 0; }'
put include/mmprof/perfsession.h '#include <perf/event.h>'
put src/record/r.c '#include "mmprof/perfsession.h"
int r(void); int r(void) { return 0; }'
out=$("$check" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ]
ok $? "src/perf/ may include libperf's headers, and perfsession.h the records' layouts <perf/event.h> (status $rc${out:+: $out})"

put include/mmprof/perfsession.h '#include <perf/event.h>
#include <perf/evsel.h>'
put src/record/r.c '#include <stdint.h>
#  include <perf/cpumap.h>
int r(void); int r(void) { return 0; }'
out=$("$check" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^libperf: src/record/r.c:2: #include <perf/cpumap.h>' <<<"$out" &&
	grep -q '^libperf: include/mmprof/perfsession.h:2: #include <perf/evsel.h>' <<<"$out" &&
	! grep -q 'perf/event.h\|src/perf/p.c' <<<"$out"
ok $? "a libperf header included outside src/perf/ is reported by file and line, perfsession.h's other than <perf/event.h> too (status $rc: $out)"

put include/mmprof/perfsession.h '#include <perf/event.h>'
put src/perf/p.c 'int perf_evsel__open(void *e, void *c, void *t); int p(void);
int p(void) { return perf_evsel__open(0, 0, 0); }'
put src/record/r.c 'int p(void); int r(void); int r(void) { return p(); }'
obj src/perf/p.c && obj src/record/r.c
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ]
ok $? "src/perf/ may call libperf, record may call src/perf/ (status $rc${out:+: $out})"

put src/record/r.c 'int p(void); void libperf_init(void *fn); int perf_evsel__read(void *e, int c, int t, void *v);
int r(void); int r(void) { libperf_init(0); return p() + perf_evsel__read(0, 0, 0, 0); }'
obj src/record/r.c
out=$("$check" --calls "$tmp/build" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q '^libperf: src/record/r.c calls perf_evsel__read outside src/perf/' <<<"$out" &&
	grep -q '^libperf: src/record/r.c calls libperf_init ' <<<"$out" && ! grep -q 'src/perf/p.c' <<<"$out"
ok $? "a libperf function called outside src/perf/ is reported by file and name (status $rc: $out)"

# doc ROWS...: a scratch architecture.md whose table has a row per argument
doc() {
	mkdir -p "$tmp/Documentation"
	{
		echo '| layer | modules | what they are |'
		echo '|---|---|---|'
		for r in "$@"; do
			printf '| x |'
			for m in $r; do
				[ "$m" = cmd ] && printf ' `cmd-*.c`, `mmprof.c`,' || printf ' `%s/` (a, b),' "$m"
			done
			echo ' what |'
		done
		echo
	} >"$tmp/Documentation/architecture.md"
}
layers=$(sed -n 's/^LAYERS="\(.*\)"$/\1/p' "$check")
rm -rf "$tmp/src" "$tmp/build"
IFS='|' read -r -a rows <<<"$layers"
rows=("${rows[@]# }")
rows=("${rows[@]% }")
doc "${rows[@]}"
out=$("$check" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ -z "$out" ]
ok $? "a table of architecture.md with LAYERS' ${#rows[@]} rows passes (status $rc${out:+: $out})"

swapped=("${rows[@]}")
swapped[1]=${rows[2]}
swapped[2]=${rows[1]}
doc "${swapped[@]}"
out=$("$check" "$tmp" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && grep -q "^layers: Documentation/architecture.md's table" <<<"$out"
ok $? "a table with two rows swapped is reported (status $rc: $out)"

done_testing
