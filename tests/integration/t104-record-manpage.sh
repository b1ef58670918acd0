#!/bin/sh
# t104-record-manpage: man/mmprof-record.1 renders without warnings and
# documents every option `mmprof record --help` lists (and no option the
# command does not have).

. "$(dirname "$0")/lib.sh"
page=$here/man/mmprof-record.1
tap_setup t104

plan 5

"$MMPROF" record --help >"$tmp/help"
ok $? "record --help exits 0"
MANWIDTH=80 man -l "$page" >"$tmp/man" 2>"$tmp/warn"
test ! -s "$tmp/warn" && test -s "$tmp/man"
ok $? "man -l renders it without warnings"
groff -ww -man -z "$page" >"$tmp/gwarn" 2>&1
test ! -s "$tmp/gwarn"
ok $? "groff -ww finds nothing to warn about"
sed 's/^# /#   /' "$tmp/gwarn"

# long options of --help ("--[no-]callchain" gives both spellings)
grep -o -- '--[][a-z-]*' "$tmp/help" | sed 's/\[no-\]//' | sort -u >"$tmp/opts"
missing=
for o in $(cat "$tmp/opts"); do
	grep -q -- "^[^ ]*$o\\b" "$tmp/man" || grep -q -- "$o" "$tmp/man" || missing="$missing $o"
done
test -z "$missing"
ok $? "every option of --help is in the man page${missing:+ (missing:$missing)}"

# options the page documents in OPTIONS must exist
sed -n '/^OPTIONS/,/^OUTPUT/p' "$tmp/man" | grep -o -- '^ *--*[a-zA-Z][a-z-]*' | sed 's/^ *//' | sort -u >"$tmp/documented"
extra=
for o in $(cat "$tmp/documented"); do
	case $o in
	--help|-h|--no-callchain) continue ;;
	esac
	grep -q -- "$o\\b" "$tmp/help" || extra="$extra $o"
done
test -z "$extra"
ok $? "the page documents no option the command lacks${extra:+ (extra:$extra)}"

done_testing
