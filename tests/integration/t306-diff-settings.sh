#!/bin/sh
# t306-diff-settings: the recorded settings that differ between the sides
# (THP, sysctls, the kernel command line, CPU model and count, governor:
# file meta) come first in every format of diff (issue 27, point 7): the
# lkp text, JSON (its first member), CSV (comment lines before the table),
# markdown and HTML (before the verdict); a setting both sides share is not
# printed, and an A/A pair prints none.

. "$(dirname "$0")/lib.sh"
tap_setup t306

"$MMPROF" record -q -o "$tmp/a.data" -- "$wl/page-fault" -s 0.2 >/dev/null 2>&1
ok $? "record page-fault"
sqlite3 "$tmp/a.data" "select key from meta" >"$tmp/meta"
grep -qx thp_enabled "$tmp/meta" && grep -qx sysctl.vm.swappiness "$tmp/meta" &&
	grep -qx kernel_cmdline "$tmp/meta" && grep -qx nr_cpus_online "$tmp/meta"
ok $? "record keeps THP, sysctls, the kernel command line and the CPU count as meta"
cp "$tmp/a.data" "$tmp/b.data"
# another machine's configuration, as a file recorded there would hold it
sqlite3 "$tmp/b.data" "update meta set value = 'never' where key = 'thp_enabled';
	update meta set value = '7' where key = 'sysctl.vm.swappiness';
	update meta set value = '64' where key = 'nr_cpus_online'"
ok $? "a copy with THP never, swappiness 7 and 64 CPUs"
thp=$(sqlite3 "$tmp/a.data" "select value from meta where key = 'thp_enabled'")
test -n "$thp" && test "$thp" != never; ok $? "the original's THP setting ($thp) is not never"
cd "$tmp" || exit 2

"$MMPROF" diff a.data b.data >out 2>err; ok $? "diff exits 0"
head -1 out | grep -q "^SETTINGS DIFFER" &&
	grep -q "^  thp_enabled: base $thp, new never$" out &&
	grep -q "^  sysctl.vm.swappiness: base [0-9]*, new 7$" out &&
	grep -q "^  nr_cpus_online: base [0-9]*, new 64$" out
ok $? "lkp: the settings first, each with both sides' values"
! grep -q "^  cpu_model:\|^  kernel_cmdline:" out; ok $? "lkp: settings both sides share are not printed"

"$MMPROF" diff -f json a.data b.data >out.json
python3 - out.json "$thp" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
assert text.startswith('{"settings_differ": ['), text[:60]
d = json.loads(text)
s = {x["setting"]: (x["base"], x["new"]) for x in d["settings_differ"]}
assert s["thp_enabled"] == (sys.argv[2], "never"), s
assert s["sysctl.vm.swappiness"][1] == "7" and s["nr_cpus_online"][1] == "64", s
assert len(s) == 3, s
PY
ok $? "json: settings_differ is the first member, the three settings with both values"

"$MMPROF" diff -f csv a.data b.data >out.csv
head -1 out.csv | grep -q "^# setting differs," &&
	grep -q "^# setting differs,thp_enabled,base,$thp,new,never$" out.csv &&
	test "$(grep -c '^#' out.csv)" -eq 3 && sed -n 4p out.csv | grep -q "^key,base_mean,"
ok $? "csv: three comment lines before the table's header"

"$MMPROF" diff -f markdown a.data b.data >out.md
head -1 out.md | grep -q '^\*\*Settings that differ\*\*.* `thp_enabled` base `'"$thp"'`, new `never`'
ok $? "markdown: the settings paragraph first"

"$MMPROF" diff --html out.html a.data b.data >/dev/null 2>&1
s=$(grep -bo 'Settings that differ' out.html | head -1 | cut -d: -f1)
v=$(grep -bo 'id="verdict"' out.html | head -1 | cut -d: -f1)
test -n "$s" && test -n "$v" && test "$s" -lt "$v" && grep -q '<code>thp_enabled</code> base <b>'"$thp"'</b>, new <b>never</b>' out.html
ok $? "html: the settings before the verdict"

"$MMPROF" diff a.data a.data >aa 2>&1 && ! grep -q "SETTINGS DIFFER" aa &&
	"$MMPROF" diff -f json a.data a.data | grep -q '^{"settings_differ": \[\], '
ok $? "A/A: no settings block, json's settings_differ empty"

done_testing
