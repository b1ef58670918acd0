#!/usr/bin/env bash
# t9000-man-pages: the manual as a whole.
#   - every command `mmprof --help` lists has a page (help and version live
#     in mmprof.1), mmprof.1 names every command, and no page in man/ is
#     left over from a command that no longer exists;
#   - every option a command's --help prints is in its page, as a word
#     (--fail-on is not satisfied by --fail-on-any), and each page has the
#     sections a reader looks for (NAME, SYNOPSIS, DESCRIPTION, EXAMPLES);
#   - every page renders without a warning under man --warnings and
#     groff -ww (the sources are the roff files in man/: see
#     Documentation/README.md);
#   - `mmprof help CMD` shows the page from the source tree, before any
#     install, and fails with status 2 on an unknown command.
# Commands are read from `mmprof --help`, so a command added later is
# checked without an edit here.

. "$(dirname "$0")/lib.sh"
man_dir=$here/man

render() {	# render PAGE: plain text, wide lines so options are not hyphenated
	MANWIDTH=200 LC_ALL=C.UTF-8 man -l "$1" 2>/dev/null | col -b
}

cmds=$("$MMPROF" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
[ -n "$cmds" ]
ok $? "mmprof --help lists commands"

for page in "$man_dir"/*.1; do
	name=$(basename "$page")
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$page" 2>&1 >/dev/null)
	[ -z "$warn" ]
	ok $? "$name renders without man warnings${warn:+: $warn}"
	warn=$(groff -ww -man -z "$page" 2>&1)
	[ -z "$warn" ]
	ok $? "$name passes groff -ww -man${warn:+: $warn}"
	missing=""
	for s in NAME SYNOPSIS DESCRIPTION EXAMPLES; do
		grep -qE "^\.SH \"?$s" "$page" || missing="$missing $s"
	done
	[ -z "$missing" ]
	ok $? "$name has the sections NAME SYNOPSIS DESCRIPTION EXAMPLES${missing:+ (missing:$missing)}"
	case $name in mmprof.1) continue ;; esac
	cmd=${name#mmprof-}
	cmd=${cmd%.1}
	grep -qx "$cmd" <<<"$cmds"
	ok $? "$name belongs to a command of mmprof --help"
done

top=$(render "$man_dir/mmprof.1")
for cmd in $cmds; do
	grep -qE "(^|[^a-z-])$cmd([^a-z-]|$)" <<<"$top"
	ok $? "mmprof.1 names the command $cmd"
	case $cmd in help|version) continue ;; esac
	page=$man_dir/mmprof-$cmd.1
	[ -f "$page" ]
	ok $? "command $cmd has a man page (man/mmprof-$cmd.1)"
	[ -f "$page" ] || continue
	text=$(render "$page")
	opts=$("$MMPROF" "$cmd" --help 2>&1 | grep -oE '(^|[ ,])(-[A-Za-z0-9]|--(\[no-\])?[a-z][a-z0-9-]*)' |
		sed -E 's/^[ ,]*//; s/\[no-\]//' | sort -u)
	[ -n "$opts" ]
	ok $? "mmprof $cmd --help lists options"
	missing=""
	for o in $opts; do
		[ "$o" = --help ] && continue
		grep -qE -e "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|$)" <<<"$text" || missing="$missing $o"
	done
	[ -z "$missing" ]
	ok $? "every option of 'mmprof $cmd --help' is in mmprof-$cmd.1${missing:+ (missing:$missing)}"

	out=$(MANPAGER=cat PAGER=cat MANWIDTH=80 "$MMPROF" help "$cmd" 2>&1 </dev/null)
	grep -q "^NAME" <<<"$out" && grep -q "mmprof-$cmd" <<<"$out"
	ok $? "'mmprof help $cmd' shows mmprof-$cmd.1 from the source tree"
done

# -q is --quiet wherever a command has it (diff and flamegraph had it as --alpha)
bad=""
for cmd in $cmds; do
	line=$("$MMPROF" "$cmd" --help 2>&1 | grep -E '^ +-q, ')
	[ -z "$line" ] || grep -qE '^ +-q, --quiet( |$)' <<<"$line" || bad="$bad $cmd"
done
qerr=$("$MMPROF" diff -q a.data b.data 2>&1 >/dev/null)
rc=$?
[ -z "$bad" ] && [ "$rc" -eq 2 ] && [ "$qerr" = "mmprof: unknown option '-q'; see 'mmprof diff --help'" ]
ok $? "-q means --quiet in every command that has it${bad:+ (not in:$bad)}; 'diff -q a b' is an unknown option"

out=$(MANPAGER=cat PAGER=cat "$MMPROF" help 2>&1 </dev/null)
grep -q "^NAME" <<<"$out" && grep -qE "^ +mmprof +- " <<<"$out"
ok $? "'mmprof help' shows mmprof.1"

out=$(MANPAGER=cat PAGER=cat "$MMPROF" help no-such-command 2>&1 </dev/null)
rc=$?
[ "$rc" -eq 2 ] && grep -q "'no-such-command' is not a command; 'mmprof --help' lists them" <<<"$out" &&
	! grep -q "mmprof no-such-command --help" <<<"$out"
ok $? "'mmprof help no-such-command' fails with status 2, says it is no command, points to mmprof --help (status $rc)"

done_testing
