#!/usr/bin/env bash
# t910-completion: the bash completion, driven as readline would drive it.
#
# An interactive bash (bash -i, no rc files) sources the script and calls
# the completion function with COMP_WORDS/COMP_CWORD set.  Commands and
# options are checked against `mmprof --help` and `mmprof CMD --help`
# themselves, so a command or option added later must complete too.

. "$(dirname "$0")/lib.sh"
script=$here/src/scripts/mmprof-completion.bash
tap_setup t910

# comp WORD... : the candidates for the last word, one a line, sorted.
comp() {
	(cd "$tmp/files" && bash --norc --noprofile -i -c '
		source "$0" || exit 3
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_mmprof
		printf "%s\n" "${COMPREPLY[@]}"' "$script" "$@" 2>/dev/null) | sed '/^$/d' | sort
}
has() {	# has NEEDLE HAYSTACK-LINES
	grep -qxF -e "$1" <<<"$2"
}

mkdir -p "$tmp/files/sub.d"
: >"$tmp/files/a.data"
: >"$tmp/files/b.data"
: >"$tmp/files/notes.txt"

bash --norc --noprofile -i -c 'source "$0" && complete -p mmprof' "$script" 2>/dev/null | grep -q _mmprof
ok $? "the script loads in an interactive bash and registers _mmprof"

cmds=$("$MMPROF" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
got=$(comp "$MMPROF" "")
missing=""
for c in $cmds; do has "$c" "$got" || missing="$missing $c"; done
[ -n "$cmds" ] && [ -z "$missing" ]
ok $? "every command of 'mmprof --help' completes (${missing:-all there})"

[ "$(comp "$MMPROF" di)" = diff ]
ok $? "'mmprof di' completes to diff"

for cmd in $cmds; do
	case $cmd in help|version) continue ;; esac
	opts=$("$MMPROF" "$cmd" --help 2>&1 | grep -oE '(^|[ ,])(-[A-Za-z0-9]|--(\[no-\])?[a-z][a-z0-9-]*)' |
		sed -E 's/^[ ,]*//; s/\[no-\]//' | sort -u)
	got=$(comp "$MMPROF" "$cmd" -)
	missing=""
	for o in $opts; do has "$o" "$got" || missing="$missing $o"; done
	[ -n "$opts" ] && [ -z "$missing" ]
	ok $? "every option of '$cmd --help' completes after '$cmd -'${missing:+ (missing:$missing)}"
done

got=$(comp "$MMPROF" diff --fail)
has --fail-on "$got" && has --fail-on-any "$got" && ! has --format "$got"
ok $? "'diff --fail' completes to --fail-on and --fail-on-any only"

got=$(comp "$MMPROF" record --no-c)
has --no-callchain "$got"
ok $? "'record --no-c' completes the negated form of --[no-]callchain"

got=$(comp "$MMPROF" report "")
has a.data "$got" && has sub.d "$got" && ! has notes.txt "$got"
ok $? "report's FILE completes .data files and directories, not other files"

got=$(comp "$MMPROF" diff a.data "")
has b.data "$got" && ! has notes.txt "$got"
ok $? "diff's second argument completes .data files"

got=$(comp "$MMPROF" diff -f "")
[ "$got" = "$(printf 'csv\njson\nlkp\nmarkdown')" ]
ok $? "'diff -f' completes the formats"

got=$(comp "$MMPROF" report -g "")
[ "$got" = "$(printf 'callee\ncaller')" ]
ok $? "'report -g' (takes an argument) completes callee|caller"

got=$(comp "$MMPROF" record --call-graph "")
[ "$got" = "$(printf 'dwarf\nfp\nlbr')" ]
ok $? "'record --call-graph' completes record's values, fp dwarf lbr (not report's callee caller)"
[ $? -eq 0 ] || echo "# got: $got"

got=$(comp "$MMPROF" diff -g "")
has a.data "$got" && ! has callee "$got"
ok $? "'diff -g' (a flag) is followed by .data files"

got=$(comp "$MMPROF" record -o "")
has notes.txt "$got" && has a.data "$got"
ok $? "'record -o' completes any file"

got=$(comp "$MMPROF" resolve --vmlinux "")
has notes.txt "$got" && has a.data "$got"
ok $? "'resolve --vmlinux' completes any file (a vmlinux has no .data suffix)"

got=$(comp "$MMPROF" record -F "")
[ -z "$got" ]
ok $? "'record -F' (a number) offers nothing"

got=$(comp "$MMPROF" help "")
has diff "$got" && has record "$got"
ok $? "'help' completes command names"

got=$(comp "$MMPROF" record -r 3 -- "$tmp/files/no")
has "$tmp/files/notes.txt" "$got"
ok $? "after 'record --' the workload's command line completes"

done_testing
