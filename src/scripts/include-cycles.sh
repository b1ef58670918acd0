#!/bin/sh
# include-cycles.sh: no cycle between mmprof's files, so that the layout
# keeps one direction (commands -> analysis -> data model, symbols,
# recording -> leaf utilities; Documentation/architecture.md).
#
#   src/scripts/include-cycles.sh [--calls BUILD] [TOP]
#
# Headers: every `#include "..."` of include/mmprof/*.h and src/**/*.h
# ("mmprof/x.h" is include/mmprof/x.h, "x.h" is beside the includer) is an
# edge; a cycle among them is reported.  With --calls BUILD, modules too:
# each folder of src/ is a module (src/*.c, the commands and main, is
# "cmd"), and a module calls another when one of its objects in BUILD
# (BUILD/src/<module>/<file>.o, as the Makefile builds them) has an
# undefined symbol that the other's objects define (nm).  Modules may not
# call each other in a circle, and files may not either, in a module or
# across: a file calls another when its object uses a symbol the other
# defines.  One exception, said where the code is: two files of one
# module whose calls go both ways may, when an internal header of the
# module that both include (src/<module>/*.h) says so in its opening
# comment, in the words "A.c and B.c are one unit" (either order), and
# why (no header uses it now: every such pair was broken).  Objects must
# be built.
#
# With --calls, the modules' calls also point down LAYERS (below), the
# layers of Documentation/architecture.md from the top: a call to a
# module of a higher row is reported as "layer: a -> b (...)", and so is
# a module in no row ("layer: x is in no row of LAYERS").  Modules of one
# row may call each other (the cycle check still applies).  With or
# without --calls, where TOP has Documentation/architecture.md, the
# modules of its table's rows (`x/`,
# and `cmd-*.c` or `mmprof.c` as cmd) must be LAYERS' rows, in order:
# else "layers: architecture.md's table ... is not LAYERS ...".
#
# The key grammar has one owner: no .c file of src/ but keykind.c
# (include/mmprof/keykind.h) compares a key with a family's prefix
# ("perf-profile.", "cost.", "tracepoint.", ...); each one found is
# reported as "grammar: FILE:LINE: ..." (ask keykind.h instead).
#
# libperf has one owner, the perf layer: no file of src/ or include/ but
# those of src/perf/ includes a libperf header (<perf/...>), reported as
# "libperf: FILE:LINE: ..." (ask perfsession.h instead); with --calls, no
# object but src/perf/'s uses a perf_* or libperf_* symbol that no object
# of mmprof defines (libperf's: mmprof names nothing perf_), reported as
# "libperf: FILE calls SYMBOL ...".
#
# Strings have one interner (include/mmprof/strintern.h): no .c file of
# src/ outside lib/ hashes a string's text (hash__bytes(s, strlen(s))),
# which is how a table of names of its own starts; each one found is
# reported as "intern: FILE:LINE: ..." (use strintern.h instead).
#
# Prints each cycle as "a -> b -> ... " and exits 1 when there is one (or
# a grammar, libperf or intern line), 0 when there is none, 2 on a usage
# or build problem.  Needs awk, tsort, nm, grep.
#
# KNOWN_CALLS, KNOWN_FILES, KNOWN_GRAMMAR, KNOWN_LIBPERF and KNOWN_INTERN
# list module and file edges, files and includes left out of the checks,
# each with why; remove one when its reason is gone, never add one just to
# pass.

# None: schedrec and trace reach libperf's session, the sample parser and
# the event spellings in perf/, below record and trace, not in record/.
KNOWN_CALLS=""
# src/cmd-help.c -> src/mmprof.c: help asks the command table whether a
# name is a command (cmd__exists) while main dispatches to cmd_help, as
# git's help.c reads git.c's table.
KNOWN_FILES="src/cmd-help.c:src/mmprof.c"

# The layers, top first, rows apart by '|': commands; bisection; history;
# the engines; the HTML pages (over diff's results and flame's pictures);
# the flame graphs and the cost waterfall; the costs per op, the gates
# and CI outputs, the call paths (diff -g); the table (the sides loaded,
# the rows written); the comparison (the rows and their test); the views of
# one file and the foreign formats out; the results store; keys and
# foreign files in; recording; the perf layer (libperf's session,
# samples, event spellings); the .data file; the data model; symbols;
# leaf utilities.  The same rows as the table of
# Documentation/architecture.md, checked below when the tree has it.
LAYERS="cmd | bisect | history | diffengine | html | flame | cost gate chains | table | diff | report export | store | keys import | record trace | perf | datafile | profile | symbols | lib"

# The key grammar (keykind.h) outside keykind.c, each file with why.
# src/diff/robot.c: compare.rb's case statement ("proc-vmstat" at the
# start, "meminfo" anywhere), the robot's rule spelled as the robot
# spells it, not mmprof's grammar.  src/profile/strip.c: the data model
# is below the keys module (profile.h knows no keys.h), and strip reads
# tracepoint.* metrics before any key is made of them.
KNOWN_GRAMMAR="src/diff/robot.c src/profile/strip.c"

# libperf headers outside src/perf/, each FILE:HEADER with why.
# include/mmprof/perfsession.h:perf/event.h: the perf layer's interface
# hands the records' layouts (union perf_event, types and no function)
# up to the readers of records (sampler-stream.c, schedrec.c).
KNOWN_LIBPERF="include/mmprof/perfsession.h:perf/event.h"

# Strings hashed outside lib/, each file with why.  src/symbols/dso.c (a
# process's file by name and pid) and src/trace/sched.c (a stack by its
# chain and comm): composite keys, not tables of names.  src/diff/diff.c
# and src/diff/verdictgate.c: indexes that find a row by its key (a
# column's rows by name, a gate's glob by its prefix), storing no string:
# the rows own their keys (diff_row.key, public).
KNOWN_INTERN="src/symbols/dso.c src/trace/sched.c src/diff/diff.c src/diff/verdictgate.c"

calls=
while [ $# -gt 0 ]; do
	case $1 in
	--calls) calls=$2; shift 2 || { echo "include-cycles: --calls needs a build folder" >&2; exit 2; } ;;
	-h|--help) sed -n '2,54p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "include-cycles: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/include-cycles.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
status=0

# loops EDGES WHAT: tsort's loops in EDGES ("a b" lines), one line each
loops() {
	if tsort "$1" >/dev/null 2>"$tmp/tsort"; then
		return 0
	fi
	awk -v what="$2" '
		/input contains a loop/ { if (cyc != "") print what " cycle: " cyc " -> " first; cyc = ""; next }
		{ sub(/^tsort: /, ""); if (cyc == "") { cyc = $0; first = $0 } else cyc = cyc " -> " $0 }
		END { if (cyc != "") print what " cycle: " cyc " -> " first }' "$tmp/tsort"
	return 1
}

# headers: includer -> included, both as paths from the top
for h in include/mmprof/*.h src/*.h src/*/*.h; do
	[ -f "$h" ] || continue
	awk -v h="$h" '
		BEGIN { d = h; sub(/\/[^\/]*$/, "", d) }
		/^[ \t]*#[ \t]*include[ \t]*"/ {
			f = $0; sub(/^[^"]*"/, "", f); sub(/".*$/, "", f)
			p = (f ~ /^mmprof\//) ? "include/" f : d "/" f
			if (p != h)
				print h, p
		}' "$h"
done >"$tmp/includes"
loops "$tmp/includes" include || status=1

# the layers as the architecture's table gives them, one row of modules per table row
doc=Documentation/architecture.md
if [ -f "$doc" ]; then
	rows=$(awk '
		/^\| layer \| modules \|/ { intable = 1; next }
		intable && !/^\|/ { exit }
		intable && /^\|---/ { next }
		intable {
			split($0, col, "|"); m = col[3]; row = ""; split("", seen)
			while (match(m, /`[^`]*`/)) {
				t = substr(m, RSTART + 1, RLENGTH - 2); m = substr(m, RSTART + RLENGTH)
				if (t ~ /^cmd-/ || t == "mmprof.c") t = "cmd"
				else if (t ~ /^[a-z0-9_]+\/$/) sub(/\/$/, "", t)
				else continue
				if (!(t in seen)) { seen[t] = 1; row = row (row == "" ? "" : " ") t }
			}
			out = out (out == "" ? "" : " | ") row
		}
		END { print out }' "$doc")
	if [ "$rows" != "$LAYERS" ]; then
		echo "layers: $doc's table \"$rows\" is not LAYERS \"$LAYERS\" (include-cycles.sh)"
		status=1
	fi
fi

# the key grammar: a family's prefix compared outside its owner
for c in src/*.c src/*/*.c; do
	[ -f "$c" ] || continue
	case " $KNOWN_GRAMMAR src/keys/keykind.c " in *" $c "*) continue ;; esac
	grep -nE '(strncmp|memcmp|strstr|prefixed)\([^;]*"(perf-profile|cost|perf-stat|perf-sched|perf-c2c|proc-vmstat|meminfo|tracepoint)[."]' "$c" |
		sed "s|^|grammar: $c:|; s|\$|  (ask keykind.h)|"
done >"$tmp/grammar"
if [ -s "$tmp/grammar" ]; then
	cat "$tmp/grammar"
	status=1
fi

# libperf: its headers included outside the perf layer
for f in include/mmprof/*.h src/*.c src/*.h src/*/*.c src/*/*.h; do
	[ -f "$f" ] || continue
	case $f in src/perf/*) continue ;; esac
	awk -v f="$f" -v known=" $KNOWN_LIBPERF " '
		/^[ \t]*#[ \t]*include[ \t]*<perf\// {
			h = $0; sub(/^[^<]*</, "", h); sub(/>.*$/, "", h)
			if (!index(known, " " f ":" h " "))
				print "libperf: " f ":" FNR ": #include <" h "> outside src/perf/  (ask perfsession.h)"
		}' "$f"
done >"$tmp/libperf"
if [ -s "$tmp/libperf" ]; then
	cat "$tmp/libperf"
	status=1
fi

# one string interner: a string's text hashed outside lib/
for c in src/*.c src/*/*.c; do
	[ -f "$c" ] || continue
	case " $KNOWN_INTERN " in *" $c "*) continue ;; esac
	case $c in src/lib/*) continue ;; esac
	grep -nE 'hash__bytes\([^;]*strn?len\(' "$c" |
		sed "s|^|intern: $c:|; s|\$|  (use strintern.h)|"
done >"$tmp/intern"
if [ -s "$tmp/intern" ]; then
	cat "$tmp/intern"
	status=1
fi

if [ -n "$calls" ]; then
	: >"$tmp/defs"
	: >"$tmp/uses"
	: >"$tmp/internal"
	for c in src/*.c src/*/*.c; do
		[ -f "$c" ] || continue
		o=$calls/${c%.c}.o
		if [ ! -f "$o" ]; then
			echo "include-cycles: no $o: build first (make BUILD=$calls)" >&2
			exit 2
		fi
		m=${c#src/}
		case $m in */*) m=${m%%/*} ;; *) m=cmd ;; esac
		nm -g --defined-only "$o" | awk -v m="$m" -v c="$c" 'NF == 3 { print $3, m, c }' >>"$tmp/defs"
		nm -u "$o" | awk -v m="$m" -v c="$c" '{ print $NF, m, c }' >>"$tmp/uses"
		# the module-internal headers c includes: "<c> <header>" lines
		awk -v c="$c" '
			BEGIN { d = c; sub(/\/[^\/]*$/, "", d) }
			/^[ \t]*#[ \t]*include[ \t]*"/ {
				f = $0; sub(/^[^"]*"/, "", f); sub(/".*$/, "", f)
				if (f !~ /^mmprof\// && d != "src")
					print c, d "/" f
			}' "$c" >>"$tmp/internal"
	done
	# each internal header's opening comment, on one line: "<header> <text>"
	for h in src/*/*.h; do
		[ -f "$h" ] || continue
		printf '%s ' "$h"
		awk 'NR == 1 && !/^[ \t]*\/\*/ { exit } { print } /\*\// { exit }' "$h" |
			sed 's/^[ \t]*\/\{0,1\}\*\{1,\}\/\{0,1\}//' | tr '\n\t' '  ' | tr -s ' '
		echo
	done >"$tmp/units"
	# files: caller -> definer, but for a two-way pair that a shared
	# internal header calls one unit
	awk -v known="$KNOWN_FILES" '
		function base(f) { sub(/.*\//, "", f); return f }
		function unit(a, b,   h, n, i, t) {
			n = split(hdr[a], h, " ")
			for (i = 1; i <= n; i++) {
				if (!index(hdr[b], " " h[i] " ") || !(h[i] in text))
					continue
				t = text[h[i]]
				if (index(t, base(a) " and " base(b) " are one unit") ||
				    index(t, base(b) " and " base(a) " are one unit"))
					return 1
			}
			return 0
		}
		BEGIN { n = split(known, k, " "); for (i = 1; i <= n; i++) skip[k[i]] = 1 }
		FILENAME == ARGV[1] { h = $1; $1 = ""; text[h] = $0; next }
		FILENAME == ARGV[2] { hdr[$1] = hdr[$1] " " $2 " "; next }
		FILENAME == ARGV[3] { def[$1] = $3; next }
		($1 in def) && def[$1] != $3 && !(($3 ":" def[$1]) in skip) { edge[$3 " " def[$1]] = 1 }
		END {
			for (e in edge) {
				split(e, ab, " ")
				if ((ab[2] " " ab[1]) in edge && unit(ab[1], ab[2]))
					continue
				print e
			}
		}' "$tmp/units" "$tmp/internal" "$tmp/defs" "$tmp/uses" | sort -u >"$tmp/files"
	loops "$tmp/files" file || status=1
	# libperf: its functions called outside the perf layer
	awk 'NR == FNR { def[$1] = 1; next }
		$3 !~ /^src\/perf\// && $1 ~ /^(lib)?perf_/ && !($1 in def) {
			print "libperf: " $3 " calls " $1 " outside src/perf/  (ask perfsession.h)" }' \
		"$tmp/defs" "$tmp/uses" | sort -u >"$tmp/libperf-calls"
	if [ -s "$tmp/libperf-calls" ]; then
		cat "$tmp/libperf-calls"
		status=1
	fi
	awk -v known="$KNOWN_CALLS" '
		BEGIN { n = split(known, k, " "); for (i = 1; i <= n; i++) skip[k[i]] = 1 }
		NR == FNR { def[$1] = $2; next }
		($1 in def) && def[$1] != $2 && !(($2 ":" def[$1]) in skip) { print $2, def[$1] }' \
		"$tmp/defs" "$tmp/uses" | sort -u >"$tmp/calls"
	loops "$tmp/calls" module || status=1
	# every module's row, and each call down or across its row
	awk -v layers="$LAYERS" '
		BEGIN { n = split(layers, row, "|"); for (i = 1; i <= n; i++) { k = split(row[i], m, " ")
			for (j = 1; j <= k; j++) at[m[j]] = i } }
		!($1 in at) && !seen[$1]++ { print "layer: " $1 " is in no row of LAYERS (include-cycles.sh)"; bad = 1 }
		!($2 in at) && !seen[$2]++ { print "layer: " $2 " is in no row of LAYERS (include-cycles.sh)"; bad = 1 }
		($1 in at) && ($2 in at) && at[$1] > at[$2] {
			print "layer: " $1 " -> " $2 " (" $1 " is below " $2 " in LAYERS)"; bad = 1 }
		END { exit bad }' "$tmp/calls" || status=1
fi
exit $status
