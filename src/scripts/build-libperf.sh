#!/bin/sh
# build-libperf.sh OUTDIR: build a static libperf (+ libapi) into OUTDIR.
#
# Debian has no libperf package, so we build the kernel's tools/lib/perf
# from a kernel tree: $LIBPERF_KERNEL_TREE when the user points us at one,
# else the members we need extracted from /usr/src/linux-source-*.tar.xz.
# Result: OUTDIR/include/perf/*.h, OUTDIR/lib/libperf.a, OUTDIR/lib/libapi.a.
# The pitfalls are in shared notes: parent make flags must not leak in, the
# library must be built -O2, the shared libperf.so must not be left beside
# the archive, and libapi.a has to be copied by hand.
set -eu
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)

# OUTDIR is shared by every build folder (see LIBPERF_DIR in the Makefile):
# two makes that find it missing at once build it once, the second waits.
exec 9>"$out/.lock"
flock 9
[ -f "$out/lib/libperf.a" ] && exit 0

if [ -n "${LIBPERF_KERNEL_TREE:-}" ]; then
	tree=$LIBPERF_KERNEL_TREE
else
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$tarball" ]; then
		echo "mmprof: no kernel source for libperf; apt-get install linux-source-6.1 or set LIBPERF_KERNEL_TREE" >&2
		exit 2
	fi
	S=$(basename "$tarball" .tar.xz)
	rm -rf "$out/src"
	mkdir -p "$out/src"
	tar -C "$out/src" -I 'xz -T0' -xf "$tarball" \
		"$S/tools/lib/perf" "$S/tools/lib/api" "$S/tools/lib/zalloc.c" \
		"$S/tools/lib/str_error_r.c" "$S/tools/include" \
		"$S/tools/arch/x86/include" "$S/tools/build" "$S/tools/scripts"
	tree=$out/src/$S
fi

mkdir -p "$out/obj"
unset MAKEFLAGS MFLAGS MAKELEVEL CFLAGS LDFLAGS CPPFLAGS
make -s -C "$tree/tools/lib/perf" O="$out/obj" prefix="$out" \
	libdir_relative=lib EXTRA_CFLAGS="-O2 -fPIC -w" \
	install_headers install_lib >"$out/build.log" 2>&1 || {
	echo "mmprof: building libperf failed; see $out/build.log" >&2
	exit 2
}
cp "$out/obj/libapi.a" "$out/lib/libapi.a"
rm -f "$out"/lib/libperf.so*
rm -rf "$out/src"
