#!/bin/sh
# t215-keys-whitespace: keys never hold whitespace (#19 4).  The robot's
# key files are "key: value" lines, and its dump-stat refuses a key with a
# space or tab; C++ and Java names have spaces ("operator new",
# "std::vector<int, std::allocator<int> >::push_back").  mmprof writes
# each space or tab of a name as '_' in every perf-profile key, the same
# in report's keys, report --json, diff's table and JSON, and gates; the
# name's own spelling stays in the call tree.

. "$(dirname "$0")/lib.sh"
tap_setup t215

plan 7

# two perf script texts: the same C++ and Java frames, the hot one twice as hot in b
mk() {	# mk N M: N samples in "operator new" under the vector's push_back, M in f
	i=0
	while [ $i -lt "$1" ]; do
		printf 'app 10/10 [000] 1.%06d: 1000 cpu-clock: \n' $i
		printf '\t    400100 operator new(unsigned long)+0x10 (/usr/lib/libstdc++.so.6)\n'
		printf '\t    400200 std::vector<int, std::allocator<int> >::push_back(int const&)+0x4 (/app)\n'
		printf '\t    400300 Interpreter\tframe+0x1 (/app)\n'
		printf '\t    400400 main+0x8 (/app)\n\n'
		i=$((i + 1))
	done
	i=0
	while [ $i -lt "$2" ]; do
		printf 'app 10/10 [000] 2.%06d: 1000 cpu-clock: \n\t    400500 f+0x1 (/app)\n' $i
		printf '\t    400400 main+0x8 (/app)\n\n'
		i=$((i + 1))
	done
}
mk 200 200 >"$tmp/a.txt"
mk 300 100 >"$tmp/b.txt"
"$MMPROF" import -o "$tmp/a.data" - <"$tmp/a.txt" 2>/dev/null &&
	"$MMPROF" import -o "$tmp/b.data" - <"$tmp/b.txt" 2>/dev/null
ok $? "import two texts with C++ names"

"$MMPROF" report --keys "$tmp/a.data" >"$tmp/keys" 2>/dev/null
! sed 's/: [^:]*$//' "$tmp/keys" | grep -q '[[:space:]]'
ok $? "report's keys hold no whitespace"
grep -qxF 'perf-profile.self.cpu-clock.operator_new(unsigned_long): 50.00' "$tmp/keys" &&
	grep -q '^perf-profile.children.cpu-clock.std::vector<int,_std::allocator<int>_>::push_back(int_const&): ' "$tmp/keys" &&
	grep -q '^perf-profile.calltrace.cpu-clock.operator_new(unsigned_long).std::vector<int,_std::allocator<int>_>::push_back(int_const&).Interpreter_frame.main: ' "$tmp/keys"
ok $? "a space or tab is '_' in children, self and calltrace keys"

"$MMPROF" report --json "$tmp/a.data" 2>/dev/null | grep -q '"perf-profile.self.cpu-clock.operator_new(unsigned_long)"'
ok $? "report --json spells the key the same"

"$MMPROF" diff -f json "$tmp/a.data" "$tmp/b.data" 2>/dev/null | grep -q '"perf-profile.self.cpu-clock.operator_new(unsigned_long)"' &&
	"$MMPROF" diff "$tmp/a.data" "$tmp/b.data" 2>/dev/null | grep -q ' perf-profile.self.cpu-clock.operator_new(unsigned_long)$'
ok $? "diff's table and JSON spell it the same"

"$MMPROF" diff --fail-on 'perf-profile.self.cpu-clock.operator_new(unsigned_long) > 1' \
	"$tmp/a.data" "$tmp/b.data" >/dev/null 2>"$tmp/err"
test $? -eq 1 && grep -q 'operator_new(unsigned_long)' "$tmp/err"
ok $? "a gate names the key so, unquoted, and trips"

"$MMPROF" report --tree "$tmp/a.data" 2>/dev/null | grep -q 'operator new(unsigned long)'
ok $? "the call tree keeps the name's own spelling"

done_testing
