#!/bin/sh
# t810-security: what a .data file and its writer promise (robustness.md):
#   - a symlink planted at the target or at the temporary name is never
#     written through (the file it points at stays as it was);
#   - files holding raw kernel addresses are created mode 0600, others
#     (stripped) 0644, less umask;
#   - record stores no environment variable;
#   - no shell is run with strings from the command line (or at all);
#   - strip removes raw kernel addresses and host identity and keeps what
#     report compares.

. "$(dirname "$0")/lib.sh"
tap_setup t810

wl=$MMPROF_BUILD/workloads/page-fault

plan 17

# 1-2: a symlink at the target
printf 'victim\n' >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/t.data"
"$MMPROF" record -q -e cpu-clock -o "$tmp/t.data" -- true 2>"$tmp/err"
rc=$?
test $rc -eq 2 && grep -q "^mmprof: cannot write '$tmp/t.data': it exists and is not a regular file" "$tmp/err"
ok $? "a symlink at the target: refused, exit 2"
test "$(cat "$tmp/victim")" = victim && test -L "$tmp/t.data"
ok $? "the file it points at is untouched"

# 3-4: a symlink at the temporary name (exec keeps the pid the name uses)
rm -f "$tmp/t.data"
sh -c 'ln -s "$1" "$2/.t.data.tmp.$$" && exec "$3" record -q -e cpu-clock -o "$2/t.data" -- true' \
	sh "$tmp/victim" "$tmp" "$MMPROF" 2>"$tmp/err"
rc=$?
test "$(cat "$tmp/victim")" = victim
ok $? "a symlink at the temporary name: the file it points at is untouched"
test $rc -eq 0 && test -f "$tmp/t.data" && ! test -L "$tmp/t.data" &&
      test "$(sqlite3 "$tmp/t.data" 'select count(*) from runs')" = 1
ok $? "and the recording is written as a regular file"
[ $rc -eq 0 ] || diag "$tmp/err"

# 5-6: permissions: kernel addresses (KASLR) are the owner's alone, as in perf.data
(umask 022 && "$MMPROF" record -q -e cpu-clock -o "$tmp/m1.data" -- "$wl" -s 0.3 2>/dev/null &&
	"$MMPROF" strip "$tmp/m1.data" -o "$tmp/m1s.data" 2>/dev/null)
(umask 077 && "$MMPROF" strip "$tmp/m1.data" -o "$tmp/m2.data" 2>/dev/null)
test "$(sqlite3 "$tmp/m1.data" 'select count(*) > 0 from frames where kernel and addr')" = 1 &&
      test "$(stat -c %a "$tmp/m1.data")" = 600 && test "$(stat -c %a "$tmp/m1s.data")" = 644
ok $? "umask 022: mode 0600 with kernel addresses, 0644 once stripped"
test "$(stat -c %a "$tmp/m2.data")" = 600
ok $? "umask 077: a stripped file 0600"

# 7-8: no environment variable is stored
secret=mmprof-secret-$$-4f1b2c
MMPROF_T810_TOKEN=$secret "$MMPROF" record -q -e cpu-clock -o "$tmp/env.data" -- \
	sh -c 'test -n "$MMPROF_T810_TOKEN"' 2>"$tmp/err"
rc=$?
ok $rc "the workload sees its environment (the variable reached it)"
sqlite3 "$tmp/env.data" .dump | grep -q "$secret"; test $? -ne 0
ok $? "no value of the environment in the file (sqlite3 .dump)"

# 9-10: no shell: metacharacters in arguments are only arguments
cd "$tmp" || exit 2
"$MMPROF" record -q -e cpu-clock -o 'x;touch pwned1.data' -- /bin/echo '$(touch pwned2)' '`touch pwned3`' \
	>"$tmp/out" 2>"$tmp/err"
test $? -eq 0 && test ! -e pwned1.data && test ! -e pwned2 && test ! -e pwned3 &&
      test -f 'x;touch pwned1.data' && grep -qx '$(touch pwned2) `touch pwned3`' "$tmp/out"
ok $? "shell syntax in -o and in the workload's arguments is never run"
cd "$here" || exit 2
grep -rnE '\b(system|popen|wordexp)\s*\(|"(/bin/)?sh"|-c"' src --include='*.c' | grep -v '^src/scripts/' >"$tmp/grep"; test $? -ne 0
ok $? "the sources call no shell (system, popen, wordexp, sh -c)"
[ -s "$tmp/grep" ] && diag "$tmp/grep"

# 11-17: strip
"$MMPROF" record -q -e cpu-clock -o "$tmp/k.data" -- "$wl" -s 0.3 >/dev/null 2>&1
kern=$(sqlite3 "$tmp/k.data" 'select count(*) from frames where kernel = 1 and addr != 0')
test "$kern" -gt 0 && test -n "$(sqlite3 "$tmp/k.data" "select value from meta where key = 'hostname'")"
ok $? "a recording holds kernel addresses ($kern frames) and the hostname"
"$MMPROF" strip "$tmp/k.data" -o "$tmp/ks.data" 2>"$tmp/err"
rc=$?
# the frames' addresses and meta kernel_ref_reloc_sym (_text's address)
test $rc -eq 0 && grep -qx "mmprof: wrote '$tmp/ks.data': $((kern + 1)) kernel addresses and 2 host identity keys removed" "$tmp/err"
ok $? "strip: exit 0 and a summary line"
[ $rc -eq 0 ] || diag "$tmp/err"
test "$(sqlite3 "$tmp/ks.data" 'select count(*) from frames where kernel = 1 and addr != 0')" = 0 &&
      test "$(sqlite3 "$tmp/ks.data" 'select count(*) from frames where kernel = 1')" = \
	   "$(sqlite3 "$tmp/k.data" 'select count(*) from frames where kernel = 1')"
ok $? "no kernel address is left, every kernel frame is"
host=$(hostname)
test "$(sqlite3 "$tmp/ks.data" "select count(*) from meta where key in ('hostname', 'cmdline')")" = 0 &&
      ! sqlite3 "$tmp/ks.data" .dump | grep -q "$tmp"
ok $? "no hostname, no command line, no path typed on it"
test "$(sqlite3 "$tmp/ks.data" 'select group_concat(sym_off) from frames where kernel = 1')" = \
	   "$(sqlite3 "$tmp/k.data" 'select group_concat(sym_off) from frames where kernel = 1')"
ok $? "symbol offsets are kept"
"$MMPROF" report --keys "$tmp/k.data" >"$tmp/r1" 2>&1
"$MMPROF" report --keys "$tmp/ks.data" >"$tmp/r2" 2>&1
cmp -s "$tmp/r1" "$tmp/r2"
ok $? "report prints the same keys for the stripped file"
cp "$tmp/k.data" "$tmp/inplace.data"
"$MMPROF" strip "$tmp/inplace.data" 2>/dev/null
test $? -eq 0 && test "$(sqlite3 "$tmp/inplace.data" 'select count(*) from frames where kernel = 1 and addr != 0')" = 0 &&
      test -z "$(ls -A "$tmp" | grep '^\.inplace')"
ok $? "strip without -o replaces the file, leaving no temporary"

done_testing
