#!/bin/sh
# t500-export: a real recording exported in every format and read back by
# independent readers.  folded equals `report --folded`; JSON parses
# (python3) and its stacks and counts rebuild exactly the folded lines and
# totals; pprof is read by the real `go tool pprof` (golang-go is installed
# with apt when missing), whose per-trace values rebuild exactly the same
# folded lines, and whose totals equal the profile's samples and period;
# its main binary (mapping 1, "File:") is the recorded command's; its
# Period is the event's (1e9/freq ns for cpu-clock at a frequency) and no
# pseudo DSO ([vdso]) gets an install-debuginfo comment.
# Errors (and another format's option, as --period with pprof) exit 2
# with one line; every --help option is in the man page.

. "$(dirname "$0")/lib.sh"
tap_setup t500

plan 22

# fixed work (4 iterations of 128 MiB, some 0.4 s of CPU), not --seconds 1
"$MMPROF" record -r 2 -o "$tmp/pf.data" -- "$wl/page-fault" -n 4 >/dev/null 2>"$tmp/err"
ok $? "record -r 2 the page-fault workload"

"$MMPROF" report --folded "$tmp/pf.data" >"$tmp/report.folded" &&
	"$MMPROF" export --format folded "$tmp/pf.data" -o "$tmp/export.folded" &&
	[ -s "$tmp/export.folded" ] && cmp -s "$tmp/report.folded" "$tmp/export.folded"
ok $? "export --format folded is report --folded (options after FILE too)"

"$MMPROF" export --format json "$tmp/pf.data" >"$tmp/pf.json" 2>"$tmp/err"
ok $? "export --format json exits 0"
[ -s "$tmp/err" ] && diag "$tmp/err"

# Rebuild folded lines from the JSON alone: frames, root-first stacks, counts.
python3 - "$tmp/pf.json" "$tmp/export.folded" >"$tmp/json.out" 2>&1 <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
assert d["format"] == "mmprof-export" and d["version"] == 1, "format and version"
assert len(d["runs"]) == 2, "two runs"
assert d["events"][0]["name"] == "cpu-clock" and d["events"][0]["period_unit"] == "nanoseconds"
assert d["meta"]["mmprof_version"], "meta"
frames, stacks = d["frames"], d["stacks"]
fold = collections.Counter()
samples = period = 0
for c in d["counts"]:
    if c["event"] != 0:
        continue
    names = [frames[f]["sym"] or "[unknown]" for f in stacks[c["stack"]]]
    if names:
        fold[";".join(names)] += c["samples"]
    samples += c["samples"]; period += c["period"]
want = collections.Counter()
for line in open(sys.argv[2]):
    k, v = line.rstrip("\n").rsplit(" ", 1)
    want[k] += int(v)
assert fold == want, "folded lines differ: %d vs %d lines" % (len(fold), len(want))
assert samples > 0
kernel = [f for f in frames if f["dso"] == "[kernel.kallsyms]"]
assert kernel and all(f["kernel"] and int(f["addr"], 16) >= 0xffff800000000000 for f in kernel)
print(samples, period)
PY
rc=$?
[ $rc -ne 0 ] && diag "$tmp/json.out"
ok $rc "JSON parses and its stacks and counts rebuild the folded lines exactly"
read -r json_samples json_period <"$tmp/json.out"

# An independent pprof reader: the real one.
if ! command -v go >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends golang-go \
		>"$tmp/apt.log" 2>&1 || diag "$tmp/apt.log"
fi
command -v go >/dev/null 2>&1
ok $? "go tool pprof is available (golang-go)"

"$MMPROF" export --format pprof -o "$tmp/pf.pb.gz" "$tmp/pf.data" 2>"$tmp/err" &&
	[ "$(head -c 2 "$tmp/pf.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ]
ok $? "export --format pprof writes gzip"

export GOCACHE="$tmp/gocache" HOME="$tmp"
go tool pprof -traces -symbolize=none -sample_index=samples "$tmp/pf.pb.gz" \
	>"$tmp/traces" 2>"$tmp/pprof.err"
ok $? "go tool pprof reads the export"
[ -s "$tmp/traces" ] || diag "$tmp/pprof.err"

# pprof takes mapping[0] as the main binary ("File:" of every view): the
# recorded command's executable, not the first DSO a stack met (ld-linux)
go tool pprof -top -symbolize=none "$tmp/pf.pb.gz" 2>"$tmp/pprof.err" | head -1 >"$tmp/file"
go tool pprof -raw -symbolize=none "$tmp/pf.pb.gz" 2>>"$tmp/pprof.err" |
	sed -n '/^Mappings/{n;p;q}' >"$tmp/map1"
test "$(cat "$tmp/file")" = "File: page-fault" && grep -q "^1: .* $wl/page-fault " "$tmp/map1"
ok $? "mapping 1 is the workload's executable: $(cat "$tmp/file"); $(cat "$tmp/map1")"

# -traces: per sample a "----+----" line, label lines ("      comm:  x"),
# then frames leaf first, the value in the first 10 columns of the first.
python3 - "$tmp/traces" "$tmp/export.folded" >"$tmp/tr.out" 2>&1 <<'PY'
import sys, collections
fold = collections.Counter(); cur = []; val = 0; total = 0
def flush():
    global cur, val
    if cur:
        fold[";".join(reversed(cur))] += val
    cur = []; val = 0
started = False
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("-----------+"):
        flush(); started = True; continue
    if not started or len(line) < 13:
        continue
    if line[10] == ":":
        continue                      # a label
    if line[:10].strip():
        val = int(line[:10]); total += val
    name = line[13:]
    # an address with no name is pprof's "<unknown>", "[[MAPPING]]" when
    # it knows the mapping (a vdso address outside every symbol), or
    # "[FILE]" (an address of libc.so.6 outside its symbols, seen once in a
    # fresh-clone CI: "[libc.so.6]"): mmprof's [unknown] every way
    unnamed = name == "<unknown>" or (name.startswith("[") and name.endswith("]"))
    cur.append("[unknown]" if unnamed else name)
flush()
want = collections.Counter()
for line in open(sys.argv[2]):
    k, v = line.rstrip("\n").rsplit(" ", 1)
    want[k] += int(v)
bad = [k for k in set(fold) | set(want) if fold[k] != want[k]]
assert not bad, "%d folded lines differ, e.g. %r: pprof %d, mmprof %d" % (
    len(bad), bad[0], fold[bad[0]], want[bad[0]])
print(total)
PY
rc=$?
[ $rc -ne 0 ] && diag "$tmp/tr.out"
ok $rc "pprof's traces rebuild the folded lines exactly"
[ "$(cat "$tmp/tr.out")" = "$json_samples" ]
ok $? "pprof's sample total equals the JSON's ($json_samples)"

go tool pprof -raw -symbolize=none "$tmp/pf.pb.gz" >"$tmp/raw" 2>"$tmp/pprof.err"
# printf, not print: mawk prints a sum past 2^31 (2.2 s of cpu-clock) as 2.2e+09
awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
     on && $2 ~ /^[0-9]+:$/ { s += $1; p += substr($2, 1, length($2) - 1) }
     END { printf "%.0f %.0f\n", s, p }' "$tmp/raw" >"$tmp/raw.sum"
[ "$(cat "$tmp/raw.sum")" = "$json_samples $json_period" ]
rc=$?
ok $rc "pprof -raw totals: samples and cpu-clock nanoseconds ($(cat "$tmp/raw.sum") vs $json_samples $json_period)"
# a CI log shows stderr only: say what pprof printed when the totals differ
[ $rc -eq 0 ] || {
	echo "# pprof -raw sums: $(cat "$tmp/raw.sum"); JSON: $json_samples $json_period"
	diag "$tmp/pprof.err"
	# the Samples section's lines that the sum above did not read
	awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
	     on && !($2 ~ /^[0-9]+:$/) && $1 !~ /:\[/' "$tmp/raw" | head -20 | diag
} >&2
# the kernel function that held most samples, as the JSON says: its name is
# this kernel's (clear_page_erms, clear_page_rep, ... by the CPU's features)
kfn=$(python3 -c '
import json, sys, collections
d = json.load(open(sys.argv[1])); fr = d["frames"]; n = collections.Counter()
for c in d["counts"]:
    st = d["stacks"][c["stack"]]
    if c["event"] == 0 and st and fr[st[-1]]["kernel"] and fr[st[-1]]["sym"]:
        n[fr[st[-1]]["sym"]] += c["samples"]
print(n.most_common(1)[0][0] if n else "")' "$tmp/pf.json" 2>/dev/null)
[ -n "$kfn" ] && grep -q "M=[0-9]* $kfn " "$tmp/raw" && grep -q 'M=[0-9]* pf_touch_pages ' "$tmp/raw" &&
	grep -q '\[kernel.kallsyms\]' "$tmp/raw" && grep -q 'source\|record_mode' "$tmp/raw"
ok $? "pprof sees the functions (${kfn:-no kernel leaf}, pf_touch_pages), the kernel mapping and the meta comments"
freq=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["events"][0]; print(e["sample"] if e["freq"] else "")' "$tmp/pf.json")
period=$(sed -n 's/^Period: //p' "$tmp/raw")
[ -n "$freq" ] && [ "$period" = "$(( (1000000000 + freq / 2) / freq ))" ] &&
	grep -q '^PeriodType: cpu-clock nanoseconds' "$tmp/raw" &&
	! grep -q '^Comment: symbols\.hint \[[^]]*\]=.*debuginfo' "$tmp/raw"
ok $? "pprof Period $period ns is 1e9/freq ($freq Hz); no pseudo-DSO debuginfo hint"

"$MMPROF" export --format json "$tmp/missing.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]
ok $? "missing file: one line, exit 2 (got $rc)"
"$MMPROF" export --format svg "$tmp/pf.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ! ls "$tmp"/*.tmp.* >/dev/null 2>&1
ok $? "unknown format: one line, exit 2 (got $rc)"
for args in "--format pprof --period" "--format pprof -e cpu-clock" "--format json --comm" "--format json --run 0"; do
	# shellcheck disable=SC2086
	"$MMPROF" export $args "$tmp/pf.data" -o "$tmp/opt.out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/opt.out" ] &&
		grep -q "^mmprof: .* is for " "$tmp/err"
	ok $? "export $args (another format's option): one line, exit 2 (got $rc)"
done
"$MMPROF" export -o "$tmp/x.json" "$tmp/pf.data" && python3 -m json.tool "$tmp/x.json" >/dev/null
ok $? "the format follows from OUT's suffix"
# the rename would replace a device with a file (as root): refused, the device kept
mknod "$tmp/dev" c 1 3
"$MMPROF" export -f folded -o "$tmp/dev" "$tmp/pf.data" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "is not a regular file" "$tmp/err" &&
	[ -c "$tmp/dev" ] && ! ls "$tmp"/dev.tmp.* >/dev/null 2>&1
ok $? "-o a device: one line, exit 2, the device stays (got $rc)"

missing=
for o in $("$MMPROF" export --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$here/man/mmprof-export.1" || missing="$missing $o"
done
[ -z "$missing" ]
ok $? "every --help option is in man/mmprof-export.1${missing:+ (missing:$missing)}"

done_testing
