#!/bin/sh
# t600-symbols: programs built here, recorded by mmprof and by perf; the
# two hottest functions mmprof names must be perf's (perf report
# --no-children --sort sym), for the cases issue 3 lists:
#   - a C++ program (templates, overloads, a lambda): demangled names;
#   - a JIT-style program running code from anonymous memory it names in
#     /tmp/perf-PID.map;
#   - a stripped program whose symbols are found by .gnu_debuglink;
#   - a program in its own mount namespace (unshare -m) whose binary exists
#     only on a tmpfs inside it.  perf cannot name it afterwards (the
#     namespace is gone when perf report runs), so perf's names come from
#     the same binary recorded outside the namespace;
#   - a program built without frame pointers: report --unresolved names it
#     as where user stacks stop short, report warns in one line; recorded
#     with --call-graph dwarf its stacks reach main;
#   - record --inline on an -O2 program with two levels of inlining: the
#     tree shows the chain (inline frames marked "(inlined)", as perf does), keys and folded stacks keep the real function
#     (perf report's hottest function).

. "$(dirname "$0")/lib.sh"
tap_setup t600
jitpids=""
cleanup_hook() {
	for p in $jitpids; do rm -f /tmp/perf-$p.map; done
	umount "$tmp/ns" 2>/dev/null
}

plan 28

# The two hottest leaf functions of an mmprof recording, one per line.
mmprof_top() {
	"$MMPROF" report --folded "$1" | awk '
		{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); t[f[k]] += c }
		END { for (x in t) printf "%d\t%s\n", t[x], x }' |
		sort -t "$(printf '\t')" -k1,1nr | head -2 | cut -f2 | sort
}
# The same from perf report (user functions; the kernel's share is tiny).
perf_top() {
	perf report -i "$1" --no-children --sort sym --stdio -g none 2>/dev/null |
		sed -n 's/^ *[0-9.]*% *\[\.\] //p' | head -2 | sed 's/ *$//' | sort
}
# compare NAME MMPROF-DATA PERF-DATA
compare() {
	mmprof_top "$2" >"$tmp/$1.m"
	perf_top "$3" >"$tmp/$1.p"
	[ "$(wc -l <"$tmp/$1.m")" -eq 2 ] && cmp -s "$tmp/$1.m" "$tmp/$1.p"
	ok $? "$1: hottest functions as perf names them ($(tr '\n' ',' <"$tmp/$1.m"))"
	cmp -s "$tmp/$1.m" "$tmp/$1.p" || { echo "# perf:"; sed 's/^/#   /' "$tmp/$1.p"; }
}
rec() {	# rec NAME CMD...: both recorders, same program
	name=$1
	shift
	"$MMPROF" record -q -o "$tmp/$name.mdata" -- "$@" >"$tmp/$name.mout" 2>"$tmp/$name.err"
	ok $? "$name: mmprof record"
	perf record -q -e cpu-clock -F 4000 -o "$tmp/$name.pdata" -- "$@" >"$tmp/$name.pout" 2>&1
}

# --- C++ -------------------------------------------------------------
cat >"$tmp/cxx.cc" <<'EOF'
#include <cstdio>
#include <string>
namespace ns {
template <typename T> struct Box {
	__attribute__((noinline)) T spin(T x, long n) {
		for (long i = 0; i < n; i++) { asm volatile("" : "+r"(x)); x = x * 3 + 1; }
		return x;
	}
};
__attribute__((noinline)) long work(long x, const std::string &s)
{ Box<long> b; return b.spin(x + (long)s.size(), 80000000); }
__attribute__((noinline)) long work(int x) { Box<unsigned> b; return b.spin((unsigned)x, 40000000); }
}
int main() {
	std::string s("abc");
	auto f = [&](int k) __attribute__((noinline)) { return ns::work(k) + ns::work(k, s); };
	printf("%ld\n", f(3));
}
EOF
g++ -O2 -g -fno-omit-frame-pointer -o "$tmp/cxx" "$tmp/cxx.cc"
ok $? "g++ builds the C++ program"
rec cxx "$tmp/cxx"
compare cxx "$tmp/cxx.mdata" "$tmp/cxx.pdata"
"$MMPROF" report --folded "$tmp/cxx.mdata" | grep -F ';main;main::{lambda(int)#1}::operator();' |
	grep -qF 'ns::Box<unsigned int>::spin'
ok $? "cxx: the lambda's stack is demangled frame by frame"

# --- JIT with a perf map ----------------------------------------------
cat >"$tmp/jit.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* x86-64: mov %rdi,%rax; 1: dec %rdi; jnz 1b; ret */
static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
int main(int argc, char **argv)
{
	unsigned char *mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long (*fa)(long), (*fb)(long), acc = 0;
	char path[64];
	FILE *fp;
	int i;

	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem + 0x100, code, sizeof(code));
	memcpy(mem + 0x900, code, sizeof(code));
	fa = (long (*)(long))(mem + 0x100);
	fb = (long (*)(long))(mem + 0x900);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (argc < 2 || !argv[1]) {	/* "nomap": a JIT that publishes nothing */
		if (!(fp = fopen(path, "w")))
			return 1;
		fprintf(fp, "%lx 40 jit_alpha\n%lx 40 JitBeta::run(int)\n", (unsigned long)fa,
			(unsigned long)fb);
		fclose(fp);
	}
	for (i = 0; i < 20; i++)
		acc += fa(12000000) + fb(6000000);
	printf("pid %d %ld\n", (int)getpid(), acc);
	return 0;
}
EOF
cc -O2 -o "$tmp/jit" "$tmp/jit.c"
ok $? "cc builds the JIT-style program"
rec jit "$tmp/jit"
jitpids=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' "$tmp/jit.mout" "$tmp/jit.pout")
compare jit "$tmp/jit.mdata" "$tmp/jit.pdata"

# --- stripped, symbols through .gnu_debuglink ---------------------------
cat >"$tmp/hot.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) unsigned long hot_alpha(unsigned long x, long n)
{ for (long i = 0; i < n; i++) { __asm__ volatile("" : "+r"(x)); x = x * 3 + 1; } return x; }
__attribute__((noinline)) unsigned long hot_beta(unsigned long x, long n)
{ for (long i = 0; i < n; i++) { __asm__ volatile("" : "+r"(x)); x = x * 5 + 1; } return x; }
int main(int argc, char **argv)
{ long k = argc > 1 ? atol(argv[1]) : 1;
  printf("%lu\n", hot_alpha(1, 120000000 * k) + hot_beta(2, 60000000 * k)); return 0; }
EOF
mkdir "$tmp/dl" &&
	cc -O2 -g -fno-omit-frame-pointer -Wl,--build-id=none -o "$tmp/dl/hot" "$tmp/hot.c" &&
	objcopy --only-keep-debug "$tmp/dl/hot" "$tmp/dl/hot.debug" &&
	strip --strip-all "$tmp/dl/hot" &&
	(cd "$tmp/dl" && objcopy --add-gnu-debuglink=hot.debug hot) &&
	! nm "$tmp/dl/hot" 2>/dev/null | grep -q hot_alpha
ok $? "stripped program with a .gnu_debuglink"
rec debuglink "$tmp/dl/hot"
compare debuglink "$tmp/debuglink.mdata" "$tmp/debuglink.pdata"

# --- another mount namespace ------------------------------------------
mkdir "$tmp/ns" && cc -O2 -g -fno-omit-frame-pointer -o "$tmp/hot" "$tmp/hot.c" &&
	cp /bin/true "$tmp/ns/hot"	# a decoy at the same path on the host
ok $? "namespace program and a host decoy built"
# Five times the work (about 1 s): mmprof opens the binary through the
# live process when it reads its mapping, and a 0.2 s run was sometimes
# gone by then under load (a fresh-clone CI run, 1 in 4 here, with this
# session's binary and the one before alike).
inner="mount -t tmpfs mmprof-t600 $tmp/ns && cp $tmp/hot $tmp/ns/hot && exec $tmp/ns/hot 5"
"$MMPROF" record -q -o "$tmp/ns.mdata" -- unshare -m --propagation private sh -c "$inner" \
	>"$tmp/ns.mout" 2>"$tmp/ns.err"
ok $? "mmprof record -- unshare -m (binary only inside the namespace)"
perf record -q -e cpu-clock -F 4000 -o "$tmp/ns.pdata" -- "$tmp/hot" >/dev/null 2>&1
compare mntns "$tmp/ns.mdata" "$tmp/ns.pdata"

# --- inline chains ------------------------------------------------------
cat >"$tmp/inl.c" <<'EOF'
#include <stdio.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long leaf(unsigned long x)
{ for (unsigned long i = 0; i < x; i++) sink += i * x; return sink; }
static inline __attribute__((always_inline)) unsigned long mid(unsigned long x)
{ return leaf(x + 1) * 3 + leaf(x); }
__attribute__((noinline)) unsigned long outer(unsigned long x) { return mid(x) + sink; }
int main(void)
{ unsigned long a = 0; for (int i = 0; i < 10; i++) a += outer(20000000); printf("%lu\n", a); return 0; }
EOF
cc -O2 -g -fno-omit-frame-pointer -o "$tmp/inl" "$tmp/inl.c"
ok $? "cc -O2 -g builds the inlining program"
"$MMPROF" record -q --inline -o "$tmp/inl.mdata" -- "$tmp/inl" >/dev/null 2>"$tmp/inl.err"
ok $? "mmprof record --inline"
perf record -q -e cpu-clock -F 4000 -o "$tmp/inl.pdata" -- "$tmp/inl" >/dev/null 2>&1
"$MMPROF" report --tree --no-graph "$tmp/inl.mdata" >"$tmp/inl.tree"
grep -q '\[\.\] leaf (inlined)$' "$tmp/inl.tree" && grep -q '\[\.\] mid (inlined)$' "$tmp/inl.tree" &&
	grep -q '\[\.\] outer$' "$tmp/inl.tree"
ok $? "tree shows the inline chain leaf (inlined), mid (inlined), outer"
top=$("$MMPROF" report --keys "$tmp/inl.mdata" | grep '^perf-profile\.self\.' | sort -t: -k2 -rn |
	head -1 | sed 's/^perf-profile\.self\.cpu-clock\.//; s/:.*//')
ptop=$(perf_top "$tmp/inl.pdata" | head -1)
[ "$top" = outer ] && [ "$(perf report -i "$tmp/inl.pdata" --no-children --sort sym --stdio -g none 2>/dev/null |
	sed -n 's/^ *[0-9.]*% *\[\.\] //p' | head -1 | sed 's/ *$//')" = outer ]
ok $? "the hottest self key is the real function, as perf report's ($top; perf: $ptop)"
! "$MMPROF" report --folded "$tmp/inl.mdata" | grep -q ';leaf\|;mid'
ok $? "folded stacks end at the real function"

# --- report --unresolved --------------------------------------------------
# (perf record of $tmp/hot above keeps it, same build-id, in perf's
# build-id cache, where mmprof, as perf report, would find its names)
cp "$tmp/hot" "$tmp/stripped" && strip --strip-all "$tmp/stripped" &&
	PERF_BUILDID_DIR="$tmp/no-cache" "$MMPROF" record -q -o "$tmp/strip.mdata" -- "$tmp/stripped" >/dev/null 2>&1
ok $? "record a stripped program"
"$MMPROF" report --unresolved "$tmp/strip.mdata" >"$tmp/strip.unres"
awk -v f="$tmp/stripped:" '$4 == f && $3 == "address" && $1 + 0 > 80 && /stripped/ { found = 1 }
	END { exit !found }' "$tmp/strip.unres"
ok $? "--unresolved: the stripped program holds most samples, with a 'stripped' hint"
"$MMPROF" record -q -o "$tmp/nomap.mdata" -- "$tmp/jit" nomap >"$tmp/nomap.out" 2>&1
"$MMPROF" report --unresolved "$tmp/nomap.mdata" >"$tmp/nomap.unres"
grep -q '^ *[0-9.]*%  *[0-9]*  address  */tmp/perf-[0-9]*\.map: JIT code without a perf map' "$tmp/nomap.unres"
ok $? "--unresolved: a JIT without a perf map is named as such"
u=$("$MMPROF" report --unresolved "$tmp/cxx.mdata" | sed -n '1s/.*: \([0-9.]*\)% of .*/\1/p')
awk -v u="$u" 'BEGIN { exit !(u != "" && u + 0 < 1) }'
ok $? "frame-pointer C++ build: under 1 % of samples unresolved ($u %)"

# --- short user stacks: no frame pointers --------------------------------
cat >"$tmp/nofp.c" <<'EOF'
volatile unsigned long sink;
__attribute__((noinline)) unsigned long leaf_work(unsigned long n)
{ unsigned long x = 0; for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005UL + i; return x; }
__attribute__((noinline)) unsigned long middle(unsigned long n) { unsigned long r = leaf_work(n); sink += r; return r + 1; }
int main(void) { for (int i = 0; i < 150; i++) sink += middle(1000000); return 0; }
EOF
cc -O2 -fomit-frame-pointer -o "$tmp/nofp" "$tmp/nofp.c" &&
	"$MMPROF" record -q -o "$tmp/nofp.mdata" -- "$tmp/nofp" >/dev/null 2>&1 &&
	"$MMPROF" record -q --call-graph dwarf -o "$tmp/nofpd.mdata" -- "$tmp/nofp" >/dev/null 2>&1
ok $? "a program built without frame pointers, recorded with fp and with dwarf"
"$MMPROF" report --unresolved "$tmp/nofp.mdata" >"$tmp/nofp.unres"
awk -v f="$tmp/nofp:" '$4 == f && $3 == "stack" && $1 + 0 > 50 && /frame pointers/ { found = 1 }
	END { exit !found }' "$tmp/nofp.unres"
ok $? "--unresolved: its user stacks stop short in it, with a frame-pointer hint"
sed -n 2p "$tmp/nofp.unres" | sed 's/^/# /'
"$MMPROF" report --keys "$tmp/nofp.mdata" >/dev/null 2>"$tmp/nofp.err"
grep -q "^mmprof: warning: '$tmp/nofp.mdata': [0-9]*% of samples have user stacks that stop in $tmp/nofp, short of main: .*--call-graph dwarf" "$tmp/nofp.err"
ok $? "report (keys) warns in one line, naming the DSO and --call-graph dwarf"
s=$("$MMPROF" report --unresolved "$tmp/nofpd.mdata" | sed -n '2s/.*: \([0-9.]*\)% of .*/\1/p')
"$MMPROF" report --keys "$tmp/nofpd.mdata" >/dev/null 2>"$tmp/nofpd.err"
awk -v s="$s" 'BEGIN { exit !(s != "" && s + 0 < 5) }' && ! test -s "$tmp/nofpd.err"
ok $? "with --call-graph dwarf the stacks reach main ($s % short) and report does not warn"
"$MMPROF" report --keys "$tmp/cxx.mdata" >/dev/null 2>"$tmp/cxx.err"
! test -s "$tmp/cxx.err"; ok $? "a frame-pointer build gets no warning"
"$MMPROF" record -q --no-callchain -o "$tmp/nofpn.mdata" -- "$tmp/nofp" >/dev/null 2>&1 &&
	"$MMPROF" report --keys "$tmp/nofpn.mdata" >/dev/null 2>"$tmp/nofpn.err" &&
	! grep -q "short of main" "$tmp/nofpn.err" &&
	! "$MMPROF" report --unresolved "$tmp/nofpn.mdata" | awk '!/^#/ && $3 == "stack"' | grep -q .
ok $? "recorded without callchains: no stack is called short of main"

done_testing
