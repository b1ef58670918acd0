#!/bin/sh
# t510-import: a perf.data recorded here by `perf record -g` imports with
# the children% that `perf report --children -U` prints for the same file
# (same samples, same symbols: they agree to perf's two decimals); the
# same perf script text on standard input gives the same profile; the
# meta says where it came from; a perf.data recorded without -g (one
# event or two: perf script pads the comm, no callchain) imports with one
# frame a sample, every sample; perf's own default event (cpu-clock:ppp
# here, perf added the precision) is stored as cpu-clock, so that diff
# compares an mmprof recording with it without --force; an mmprof .data
# file given as perf.data is named as one; garbage, a file that is not perf.data and
# a missing perf each fail with one line and exit 2.

. "$(dirname "$0")/lib.sh"
tap_setup t510

plan 17

# perf samples at 4000 Hz unless the kernel's limit is lower (perf lowers it)
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
freq=$((max < 4000 ? max : 4000))
perf record -q -g -e cpu-clock -o "$tmp/perf.data" -- "$wl/page-fault" --seconds 1 \
	>/dev/null 2>"$tmp/err"
ok $? "perf record -g the page-fault workload"

"$MMPROF" import "$tmp/perf.data" -o "$tmp/imp.data" 2>"$tmp/err"
ok $? "import perf.data exits 0"
[ -s "$tmp/err" ] && diag "$tmp/err"

"$MMPROF" report --keys "$tmp/imp.data" >"$tmp/keys" 2>&1
perf report -i "$tmp/perf.data" --children --sort=dso,symbol -g none -U --stdio \
	>"$tmp/perf.txt" 2>/dev/null
bad=
for f in asm_exc_page_fault exc_page_fault handle_mm_fault __handle_mm_fault \
	 do_anonymous_page clear_page_erms pf_touch_pages; do
	p=$(awk -v f="$f" '$5 == f { sub("%", "", $1); print $1; exit }' "$tmp/perf.txt")
	m=$(sed -n "s/^perf-profile\.children\.cpu-clock\.$f: //p" "$tmp/keys")
	awk -v p="$p" -v m="$m" 'BEGIN { d = p - m; if (d < 0) d = -d; exit !(p != "" && m != "" && d <= 0.01) }' ||
		bad="$bad $f(perf $p, mmprof $m)"
done
[ -z "$bad" ]
ok $? "children% equal perf report --children -U on the same perf.data${bad:+:$bad}"

"$MMPROF" report --json "$tmp/imp.data" >"$tmp/imp.json" &&
python3 - "$tmp/imp.json" "$(perf version | awk '{print $3}')" "$freq" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["meta"]
assert m["source"] == "perf.data" and m["source_file"] == "perf.data", m
assert m["perf_version"] == sys.argv[2], (m["perf_version"], sys.argv[2])
assert "perf record" in m["perf_cmdline"] and m["hostname"] and m["kernel_release"]
e = d["events"][0]
assert e["name"] == "cpu-clock" and e["type"] == 1 and e["config"] == 0 and e["freq"] == int(sys.argv[3]), e
assert len(d["runs"]) == 1 and d["runs"][0]["samples"] > 100 and d["runs"][0]["wall_ns"] > 5e8
PY
ok $? "meta: source, file, perf version, perf's command line; the event from the header"

# sample count against perf's own
ps=$(perf script -i "$tmp/perf.data" 2>/dev/null | grep -c '^[^[:space:]#]')
ms=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["samples"])' "$tmp/imp.json")
[ "$ps" = "$ms" ]
ok $? "every sample imported (perf script $ps, mmprof $ms)"

perf script -i "$tmp/perf.data" 2>/dev/null | "$MMPROF" import - -o "$tmp/stdin.data" 2>"$tmp/err"
ok $? "import - (perf script text on stdin) exits 0"
"$MMPROF" report --keys "$tmp/stdin.data" >"$tmp/keys2" &&
	"$MMPROF" report --folded --period "$tmp/imp.data" >"$tmp/f1" &&
	"$MMPROF" report --folded --period "$tmp/stdin.data" >"$tmp/f2" &&
	cmp -s "$tmp/keys" "$tmp/keys2" && cmp -s "$tmp/f1" "$tmp/f2" && [ -s "$tmp/f1" ]
ok $? "stdin gives the same keys and folded stacks as the perf.data path"
"$MMPROF" report --json "$tmp/stdin.data" | grep -q '"source": "perf script"'
ok $? "stdin import says source perf script"

# without -g: sample lines start with the padded comm, no callchain
perf record -q -F "$freq" -e cpu-clock,page-faults -o "$tmp/nog.perf" -- "$wl/page-fault" --seconds 0.3 \
	>/dev/null 2>"$tmp/err" &&
	"$MMPROF" import "$tmp/nog.perf" -o "$tmp/nog.data" 2>"$tmp/err"
rc=$?
ok $rc "import of a perf.data recorded without -g, two events, exits 0 (got $rc: $(cat "$tmp/err"))"
ps=$(perf script -i "$tmp/nog.perf" 2>/dev/null | grep -c '^ *[^[:space:]#]')
"$MMPROF" report --json "$tmp/nog.data" >"$tmp/nog.json" 2>/dev/null &&
python3 - "$tmp/nog.json" "$ps" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [e["name"] for e in d["events"]] == ["cpu-clock", "page-faults"], d["events"]
assert d["runs"][0]["samples"] == int(sys.argv[2]) > 10, (d["runs"][0]["samples"], sys.argv[2])
assert d["meta"]["callchain"] == "0", d["meta"]
PY
ok $? "every sample ($ps) of both events, meta callchain 0"

# perf's default event (no -e): perf names it cpu-clock:ppp on this machine
# (cpu-clock:pppH from 6.1.1xx on: the H of its default exclude_guest)
perf record -q -g -F "$freq" -o "$tmp/def.perf" -- "$wl/page-fault" --seconds 0.3 >/dev/null 2>&1 &&
	"$MMPROF" import "$tmp/def.perf" -o "$tmp/def.data" 2>"$tmp/err" &&
	"$MMPROF" report --json "$tmp/def.data" >"$tmp/def.json" 2>/dev/null &&
	python3 - "$tmp/def.json" "$(perf evlist -i "$tmp/def.perf" 2>/dev/null)" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["events"]
assert len(e) == 1 and e[0]["name"] == "cpu-clock" and e[0]["asked"] == sys.argv[2], (e, sys.argv[2])
PY
ok $? "perf's default event ($(perf evlist -i "$tmp/def.perf" 2>/dev/null)) imports as cpu-clock"
"$MMPROF" record -q -o "$tmp/mm.data" -- "$wl/page-fault" --seconds 0.3 >/dev/null 2>&1 &&
	"$MMPROF" diff --all "$tmp/mm.data" "$tmp/def.data" >"$tmp/diff" 2>"$tmp/err" &&
	! grep -q "DIFFERENT SAMPLING EVENTS" "$tmp/err" && grep -q 'perf-profile\.children\.cpu-clock\.' "$tmp/diff"
ok $? "diff of an mmprof recording and the import compares without --force ($(head -1 "$tmp/err"))"

head -c 4000 /etc/services | "$MMPROF" import - -o "$tmp/g.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "not perf script output" "$tmp/err" &&
	[ ! -e "$tmp/g.data" ]
ok $? "garbage on stdin: one line, exit 2, no output file (got $rc: $(cat "$tmp/err"))"

head -c 4000 /etc/services >"$tmp/notperf.data"
"$MMPROF" import "$tmp/notperf.data" -o "$tmp/g.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "perf script failed: ." "$tmp/err"
ok $? "not a perf.data: perf's message on one line, exit 2 (got $rc: $(cat "$tmp/err"))"

"$MMPROF" import "$tmp/imp.data" -o "$tmp/g.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "already an mmprof .data file" "$tmp/err" &&
	[ ! -e "$tmp/g.data" ]
ok $? "an mmprof .data file: says it is one, exit 2 (got $rc: $(cat "$tmp/err"))"

"$MMPROF" import --perf "$tmp/no-such-perf" "$tmp/perf.data" -o "$tmp/g.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "perf is not installed" "$tmp/err"
ok $? "perf missing: says so, exit 2 (got $rc: $(cat "$tmp/err"))"

missing=
for o in $("$MMPROF" import --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$here/man/mmprof-import.1" || missing="$missing $o"
done
[ -z "$missing" ]
ok $? "every --help option is in man/mmprof-import.1${missing:+ (missing:$missing)}"

done_testing
