# store.sh: what the results store's tests share, sourced after lib.sh
# (and tap_setup): a private PostgreSQL cluster, and variants of a .data
# file (each of bytes of its own: a push is idempotent by the bytes).
#
#	. "$(dirname "$0")/store.sh"
#	pg_start || { fail "a private PostgreSQL cluster starts"; done_testing; }
#	variant_base "$tmp/a.data" "$tmp/base.data"
#	variant "$tmp/v1.data" 1 1
#	"$MMPROF" push --store "$PGURL" --commit c1 "$tmp/v1.data"
#
# pg_start [SERVER OPTION...]: initdb into a folder of its own under
# $TMPDIR (as the user nobody when we are root: initdb refuses root), then
# the server on a Unix socket in that folder and on 127.0.0.1 only, at a
# free port (the sslmode tests need TCP: libpq never uses SSL on a socket).
# Sets PGDIR, PGPORT_T, PGURL (the superuser "mmprof" on database "mmprof"
# through the socket) and PGURL_TCP (the same through 127.0.0.1).  The
# server runs without fsync (a test's data need not outlive a crash of the
# machine) unless the options say "-c fsync=on" (make bench does).  Trust
# authentication: only this machine's users reach it, and only while the
# test runs.
#
# The server is stopped and its folder removed on every exit of the test,
# a HUP, INT or TERM included: store.sh's cleanup_hook calls pg_stop (a test
# with a hook of its own calls pg_stop from it).  Nothing else is needed:
# PostgreSQL's binaries are found under /usr/lib/postgresql/*/bin (deps.sh's
# tests set installs them).

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
PGDIR=

pg_as() {	# pg_as CMD...: as the cluster's owner
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
	else
		"$@"
	fi
}

pg_start() {
	[ -n "$pg_bin" ] || { echo "# no PostgreSQL under /usr/lib/postgresql" >&2; return 1; }
	# a signal ends the test through its EXIT trap too (the shell runs it
	# on exit, not on death by a signal), so the server never outlives it
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/mmprof-pg.XXXXXX") || return 1
	chmod 755 "$PGDIR"
	[ "$(id -u)" = 0 ] && chown nobody:nogroup "$PGDIR"
	pg_as "$pg_bin/initdb" -D "$PGDIR/data" -U mmprof --auth=trust -E UTF8 --locale=C -N \
		>"$PGDIR/initdb.log" 2>&1 || { cat "$PGDIR/initdb.log" >&2; return 1; }
	tries=0
	while [ $tries -lt 8 ]; do
		tries=$((tries + 1))
		PGPORT_T=$(( 20000 + ($$ * 7 + tries * 7919 + $(date +%N | sed 's/^0*//;s/^$/0/') % 9973) % 40000 ))
		if pg_as "$pg_bin/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 60 start \
			-o "-k $PGDIR -p $PGPORT_T -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60 $*" \
			>/dev/null 2>&1; then
			PGURL="postgresql:///mmprof?host=$PGDIR&port=$PGPORT_T&user=mmprof"
			PGURL_TCP="postgresql://mmprof@127.0.0.1:$PGPORT_T/mmprof"
			"$pg_bin/psql" -q -X -d "postgresql:///postgres?host=$PGDIR&port=$PGPORT_T&user=mmprof" \
				-c "CREATE DATABASE mmprof" >/dev/null || return 1
			return 0
		fi
	done
	cat "$PGDIR/server.log" >&2
	return 1
}

pg_stop() {
	[ -n "$PGDIR" ] || return 0
	[ -f "$PGDIR/data/postmaster.pid" ] &&
		pg_as "$pg_bin/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$PGDIR"
	PGDIR=
}

# pg_sql [-U ROLE] SQL: run SQL (psql -At: unaligned, tuples only) on the test's database
pg_sql() {
	role=mmprof
	[ "$1" = -U ] && { role=$2; shift 2; }
	"$pg_bin/psql" -X -At -v ON_ERROR_STOP=1 -d "postgresql:///mmprof?host=$PGDIR&port=$PGPORT_T&user=$role" -c "$1"
}

cleanup_hook() {
	pg_stop
}

# variant_base SRC BASE: BASE is SRC with a meta value test.variant to
# patch in place (variant); non-zero when it cannot be made
variant_base() {
	cp "$1" "$2" &&
		sqlite3 "$2" "INSERT INTO meta(seq, key, value) VALUES((SELECT max(seq) + 1 FROM meta), 'test.variant', 'VARIANT-00000-00000')" &&
		variant_off=$(grep -obUaF 'VARIANT-00000-00000' "$2" | head -1 | cut -d: -f1) &&
		[ -n "$variant_off" ] && variant_src=$2
}

# variant FILE A B: FILE is variant_base's BASE with the value VARIANT-A-B
# (A, B below 100000), a meta value the file's readers take as any other
variant() {
	cp "$variant_src" "$1" && printf '%05d-%05d' "$2" "$3" |
		dd of="$1" bs=1 seek=$((variant_off + 8)) conv=notrunc 2>/dev/null
}
