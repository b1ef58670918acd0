#!/usr/bin/env bash
# t920-install: `make install DESTDIR=... PREFIX=/usr` stages the binary,
# every page of man/ and the bash completion; the staged binary runs, the
# staged pages are found by man(1) through -M/MANPATH, `mmprof help CMD`
# of the installed binary finds its page there, and the staged completion
# loads.  Runs make with -o on the binary so that a source file being edited
# meanwhile cannot trigger a rebuild here (the test checks install, not the
# build).

. "$(dirname "$0")/lib.sh"
tap_setup t920

# The build dir as make knows it (build/, build-san/ or any make BUILD=...),
# which install takes as is, and the sanitizer flags it was built with.
build=$MMPROF_BUILD
san=${MMPROF_SANITIZE:-}
stage=$tmp/stage
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$here" -o "$build/mmprof" \
	BUILD="$build" SANITIZE="$san" DESTDIR="$stage" PREFIX=/usr install >"$tmp/log" 2>&1
ok $? "make install DESTDIR=... PREFIX=/usr succeeds$( [ -s "$tmp/log" ] && echo ": $(tr '\n' ' ' <"$tmp/log")")"

[ -x "$stage/usr/bin/mmprof" ] && cmp -s "$stage/usr/bin/mmprof" "$MMPROF"
ok $? "the binary is installed as usr/bin/mmprof"

"$stage/usr/bin/mmprof" version | grep -q '^mmprof [0-9]'
ok $? "the installed binary runs"

missing=""
for page in "$here"/man/*.1; do
	cmp -s "$page" "$stage/usr/share/man/man1/$(basename "$page")" || missing="$missing $(basename "$page")"
done
[ -z "$missing" ]
ok $? "every page of man/ is installed in usr/share/man/man1${missing:+ (missing:$missing)}"

out=$(MANWIDTH=80 man -M "$stage/usr/share/man" mmprof-diff 2>&1 </dev/null)
grep -q "^NAME" <<<"$out" && grep -q -- "--fail-on" <<<"$out"
ok $? "man -M STAGE/usr/share/man mmprof-diff renders the installed page"

# Installed, the binary has no man/ beside it: help must go through man(1).
out=$(MANPATH=$stage/usr/share/man MANPAGER=cat PAGER=cat MANWIDTH=80 "$stage/usr/bin/mmprof" help record 2>&1 </dev/null)
grep -q "^NAME" <<<"$out" && grep -q "mmprof-record" <<<"$out"
ok $? "the installed 'mmprof help record' finds the installed page"

comp=$stage/usr/share/bash-completion/completions/mmprof
cmp -s "$comp" "$here/src/scripts/mmprof-completion.bash"
ok $? "the bash completion is installed as share/bash-completion/completions/mmprof"

bash --norc --noprofile -i -c 'source "$0" && complete -p mmprof' "$comp" 2>/dev/null | grep -q _mmprof
ok $? "the installed completion loads"

done_testing
