#!/bin/sh
# deps.sh: make sure the build's dependencies are present.
#
# Checks each pkg-config module mmprof builds against and, where libperf has
# no pkg-config file, the Debian kernel source tarball libperf is built from.
# Missing Debian packages are installed with apt-get when we are root (or
# sudo works without a password); otherwise one line names the package and
# the script fails.  Set MMPROF_NO_INSTALL=1 to only check.
set -eu

missing=""
need() {	# need PKGCONFIG-NAME DEBIAN-PACKAGE
	pkg-config --exists "$1" 2>/dev/null || missing="$missing $2"
}

command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
if command -v pkg-config >/dev/null 2>&1; then
	need libelf libelf-dev
	need libdw libdw-dev
	need libtraceevent libtraceevent-dev
	need sqlite3 libsqlite3-dev
	need zlib zlib1g-dev
fi
if [ -z "${LIBPERF_KERNEL_TREE:-}" ] && ! pkg-config --exists libperf 2>/dev/null; then
	ls /usr/src/linux-source-*.tar.xz >/dev/null 2>&1 || missing="$missing linux-source-6.1"
	command -v xz >/dev/null 2>&1 || missing="$missing xz-utils"
fi
# libiberty (C++/Rust demangling) has no pkg-config file: look for its header.
[ -f /usr/include/libiberty/demangle.h ] || missing="$missing libiberty-dev"
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
command -v prove >/dev/null 2>&1 || missing="$missing perl"
command -v perf >/dev/null 2>&1 || missing="$missing linux-perf"
command -v addr2line >/dev/null 2>&1 || missing="$missing binutils"
# tools the tests use to check mmprof's output against independent readers
command -v sqlite3 >/dev/null 2>&1 || missing="$missing sqlite3"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v man >/dev/null 2>&1 || missing="$missing man-db"
command -v groff >/dev/null 2>&1 || missing="$missing groff-base"
command -v clang >/dev/null 2>&1 || missing="$missing clang"
# --tests (make check): the independent readers and loads some tests drive,
# installed here once rather than by tests running in parallel (two apt-get
# at once fail on dpkg's lock)
if [ "${1:-}" = --tests ]; then
	command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
	command -v go >/dev/null 2>&1 || missing="$missing golang-go"
	command -v stress-ng >/dev/null 2>&1 || missing="$missing stress-ng"
	command -v valgrind >/dev/null 2>&1 || missing="$missing valgrind"
fi

[ -z "$missing" ] && exit 0

if [ "${MMPROF_NO_INSTALL:-0}" = 1 ]; then
	echo "mmprof: missing build dependencies; install:$missing" >&2
	exit 2
fi

if [ "$(id -u)" = 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo="sudo -n"
else
	echo "mmprof: missing build dependencies and not root; run: apt-get install$missing" >&2
	exit 2
fi

echo "mmprof: installing build dependencies:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
# shellcheck disable=SC2086
if ! $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >&2; then
	echo "mmprof: apt-get install failed; install by hand:$missing" >&2
	exit 2
fi
