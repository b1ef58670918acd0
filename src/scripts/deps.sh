#!/bin/sh
# deps.sh SET...: make sure what a make target needs is present.
#
# SET is one of (default build):
#   build   compiling mmprof and the workloads: the pkg-config modules
#           mmprof links (libpq: the results store's PostgreSQL backend),
#           libiberty, a C compiler and, where libperf has no pkg-config
#           file, the Debian kernel source libperf is built from
#   tests   make check: prove, and the independent readers and loads the
#           tests drive (perf, sqlite3, PostgreSQL's server and psql,
#           python3 with yaml and junitparser, g++, man, groff, chromium,
#           go, stress-ng, valgrind, addr2line)
#   demo    make demo: nothing beyond build today (flock is in util-linux)
#   fuzz    make fuzz: clang with libFuzzer
#   bench   make bench: perf, GNU time, sqlite3 and PostgreSQL (the store's section)
# The Makefile calls it once per set and build folder (a stamp records
# success), before the first step that needs the set, never while parsing.
#
# Missing Debian packages are installed with apt-get (after apt-get update)
# when we are root (or sudo works without a password); otherwise one line
# names the packages and the script fails.  Set MMPROF_NO_INSTALL=1 to only
# check.
set -eu

missing=""
need_pc() {	# need_pc PKGCONFIG-NAME DEBIAN-PACKAGE
	pkg-config --exists "$1" 2>/dev/null || missing="$missing $2"
}
need_cmd() {	# need_cmd COMMAND DEBIAN-PACKAGE
	command -v "$1" >/dev/null 2>&1 || missing="$missing $2"
}

deps_build() {
	need_cmd pkg-config pkg-config
	if command -v pkg-config >/dev/null 2>&1; then
		need_pc libelf libelf-dev
		need_pc libdw libdw-dev
		need_pc libtraceevent libtraceevent-dev
		need_pc sqlite3 libsqlite3-dev
		need_pc zlib zlib1g-dev
		# the results store's PostgreSQL backend (mmprof push, diff STORE:COMMIT)
		need_pc libpq libpq-dev
	fi
	# the Makefile says which libperf it chose (MMPROF_OWN_LIBPERF=1: ours)
	own=${MMPROF_OWN_LIBPERF:-}
	[ -n "$own" ] || { pkg-config --exists libperf 2>/dev/null && own=0 || own=1; }
	if [ -z "${LIBPERF_KERNEL_TREE:-}" ] && [ "$own" = 1 ]; then
		ls /usr/src/linux-source-*.tar.xz >/dev/null 2>&1 || missing="$missing linux-source-6.1"
		need_cmd xz xz-utils
	fi
	# libiberty (C++/Rust demangling) has no pkg-config file: look for its header.
	[ -f /usr/include/libiberty/demangle.h ] || missing="$missing libiberty-dev"
	need_cmd cc gcc
	need_cmd ar binutils
}

# The independent readers and loads the tests check mmprof against,
# installed here once rather than by tests running in parallel (two apt-get
# at once fail on dpkg's lock).
deps_tests() {
	need_cmd prove perl
	need_cmd perf linux-perf
	need_cmd stress-ng stress-ng
	need_cmd addr2line binutils
	need_cmd sqlite3 sqlite3
	need_cmd python3 python3
	# Debian's python3 with its yaml module (t960 parses the CI guide's YAML)
	/usr/bin/python3 -c 'import yaml' 2>/dev/null || missing="$missing python3-yaml"
	# and a JUnit reader (t404 reads diff --junit's output with it)
	/usr/bin/python3 -c 'import junitparser' 2>/dev/null || missing="$missing python3-junitparser"
	need_cmd g++ g++
	need_cmd man man-db
	need_cmd groff groff-base
	need_cmd chromium chromium
	need_cmd go golang-go
	need_cmd stress-ng stress-ng
	need_cmd valgrind valgrind
	# a private PostgreSQL cluster for the results store's tests (tests/integration/store.sh)
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
	need_cmd psql postgresql-client
}

deps_demo() {
	need_cmd flock util-linux
}

deps_fuzz() {
	need_cmd clang clang
}

deps_bench() {
	need_cmd perf linux-perf
	need_cmd stress-ng stress-ng
	[ -x /usr/bin/time ] || missing="$missing time"
	# the results store's section: variants made with sqlite3, a private PostgreSQL
	need_cmd sqlite3 sqlite3
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
	need_cmd psql postgresql-client
}

[ $# -gt 0 ] || set -- build
for set in "$@"; do
	case $set in
	build|tests|demo|fuzz|bench) "deps_$set" ;;
	*) echo "mmprof: deps.sh: unknown set '$set' (build, tests, demo, fuzz, bench)" >&2; exit 2 ;;
	esac
done

[ -z "$missing" ] && exit 0

if [ "${MMPROF_NO_INSTALL:-0}" = 1 ]; then
	echo "mmprof: missing dependencies ($*); install:$missing" >&2
	exit 2
fi

if [ "$(id -u)" = 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo="sudo -n"
else
	echo "mmprof: missing dependencies ($*) and not root; run: apt-get install$missing" >&2
	exit 2
fi

echo "mmprof: installing dependencies ($*):$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
# shellcheck disable=SC2086
if ! $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >&2; then
	echo "mmprof: apt-get install failed; install by hand:$missing" >&2
	exit 2
fi
