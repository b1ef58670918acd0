#!/bin/sh
# t331-push-pg: the results store in PostgreSQL, a real server: a private
# cluster of the test's own (store.sh: initdb as nobody, a socket in its
# folder and 127.0.0.1 only, stopped on every exit).
#   - push and diff STORE:COMMIT as with SQLite (t330): the same rows as
#     the files' diff;
#   - 16 pushers x 200 pushes at once (20 files a process, a transaction
#     each) into a new database (all of them meeting the schema's
#     creation): no push lost or doubled, every run and key row there;
#   - a pusher killed (SIGKILL) in the middle of its transaction, held
#     there by a lock on its last table: no trace of it;
#   - a role that may only insert (the GRANTs of Documentation/history.md)
#     pushes, and can neither read nor delete;
#   - libpq's settings through the URL and PG* variables: sslmode=require
#     against a server without SSL is libpq's own error, sslmode=disable
#     works, PGHOST/PGPORT/PGUSER/PGDATABASE with a bare URL; a password
#     in a URL is never printed;
#   - a store of a newer schema is refused.

. "$(dirname "$0")/lib.sh"
tap_setup t331
. "$(dirname "$0")/store.sh"

pg_start; ok $? "a private PostgreSQL cluster starts"
[ -n "$PGURL" ] || { done_testing; }

rec() {	# rec OUT RUNS SECONDS
	"$MMPROF" record -q -r "$2" -o "$tmp/$1" -- "$wl/thp-zap" --thp off -s "$3" >/dev/null 2>"$tmp/rec.err"
}
rec a.data 2 0.3 && rec b.data 2 0.3 && rec small.data 1 0.2; ok $? "record a, b (2 runs) and a small file"

"$MMPROF" push --store "$PGURL" --commit aaa111 "$tmp/a.data" >"$tmp/out" 2>"$tmp/err"
ok $? "push a"
grep -q "a.data: push 1, commit aaa111, machine .*, benchmark thp-zap: 2 runs" "$tmp/out"; ok $? "its line"
"$MMPROF" push --store "$PGURL" --commit aaa111 "$tmp/a.data" >"$tmp/out" 2>&1 &&
	grep -q "in the store already" "$tmp/out"
ok $? "the same file again: in the store already"
"$MMPROF" push -q --store "$PGURL" --commit bbb222 "$tmp/b.data"; ok $? "push b"
[ "$(pg_sql "SELECT count(*), sum(nr_runs) FROM pushes")" = "2|4" ]; ok $? "two pushes, four runs"
mkdir "$tmp/t"
TMPDIR=$tmp/t "$MMPROF" diff -f csv "$PGURL:aaa111" "$PGURL:bbb222" >"$tmp/store.csv" 2>"$tmp/err"
ok $? "diff STORE:aaa111 STORE:bbb222"
"$MMPROF" diff -f csv "$tmp/a.data" "$tmp/b.data" >"$tmp/files.csv" 2>"$tmp/err"
cmp -s "$tmp/store.csv" "$tmp/files.csv"; ok $? "the rows of the files' diff, byte for byte"
[ -z "$(ls -A "$tmp/t")" ]; ok $? "no fetched file left"

# 16 pushers x 200 pushes into a new database: variants of the small file
pg_sql "CREATE DATABASE conc" >/dev/null
CONC="postgresql:///conc?host=$PGDIR&port=$PGPORT_T&user=mmprof"
variant_base "$tmp/small.data" "$tmp/base.data"; ok $? "a file to make variants of"
# a pusher is one client pushing 200 files, 20 per process (one
# connection, a transaction per file): a process and a connection per
# file would measure process starts, about 25 ms of CPU each with libpq's
# libraries and the server's fork, which tripled the test's time
pusher() {	# pusher P BATCHES: BATCHES x 20 pushes, commit cP-B for batch B
	b=0
	while [ $b -lt "$2" ]; do
		b=$((b + 1)) j=0 files=
		while [ $j -lt 20 ]; do
			j=$((j + 1))
			variant "$tmp/w$1-$j.data" "$1" $(((b - 1) * 20 + j)) || echo "variant $1 $b $j" >>"$tmp/conc.err"
			files="$files $tmp/w$1-$j.data"
		done
		# shellcheck disable=SC2086
		"$MMPROF" push -q --store "$CONC" --commit "c$1-$b" $files 2>>"$tmp/conc.err" ||
			echo "pusher $1 batch $b failed" >>"$tmp/conc.err"
	done
}
: >"$tmp/conc.err"
p=0
while [ $p -lt 16 ]; do
	p=$((p + 1))
	pusher $p 10 &
done
wait
[ ! -s "$tmp/conc.err" ]; ok $? "16 pushers of 200 pushes each at once: none failed"
head -5 "$tmp/conc.err" | diag
keys=$("$MMPROF" push --store "$tmp/one.db" --commit x "$tmp/base.data" | sed 's/.*, \([0-9]*\) keys.*/\1/')
psql_conc() { "$pg_bin/psql" -X -At -d "$CONC" -c "$1"; }
[ "$(psql_conc "SELECT count(*), count(DISTINCT hash), sum(nr_runs) FROM pushes")" = "3200|3200|3200" ]
ok $? "3200 pushes, each once, 3200 runs"
[ "$(psql_conc "SELECT count(*) FROM runs")" = 3200 ] && [ "$(psql_conc "SELECT count(*) FROM blobs")" = 3200 ]
ok $? "a row per run and a file per push"
[ "$(psql_conc "SELECT count(*) FROM keyvals")" = $((3200 * keys)) ]
ok $? "$keys keys of every push: $((3200 * keys)) key rows"
[ "$(psql_conc "SELECT count(DISTINCT m.value) FROM meta m JOIN pushes p ON p.id = m.push_id
	WHERE m.key = 'test.variant' AND m.value ~ '^VARIANT-000([01][0-9])-00[0-9]{3}\$'
	AND p.commit_id = 'c' || (substr(m.value, 9, 5)::int) || '-' || ((substr(m.value, 15, 5)::int - 1) / 20 + 1)")" = 3200 ]
ok $? "each variant pushed once, under its pusher's and batch's commit"

# a pusher killed in the middle of its transaction
before=$(pg_sql "SELECT count(*) || ' ' || (SELECT count(*) FROM keyvals) || ' ' || (SELECT count(*) FROM runs) FROM pushes")
"$pg_bin/psql" -X -q -d "$PGURL" -c "BEGIN; LOCK TABLE blobs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120); COMMIT" \
	>/dev/null 2>&1 &
locker=$!
wait_for() {	# wait_for SQL: until it prints 1 (60 s at most)
	w=0
	while [ "$(pg_sql "$1")" != 1 ] && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done
	[ $w -lt 600 ]
}
wait_for "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'blobs' AND l.mode = 'AccessExclusiveLock' AND l.granted"
ok $? "a session holds the blobs table"
variant "$tmp/killed.data" 99 1
"$MMPROF" push -q --store "$PGURL" --commit killed "$tmp/killed.data" 2>/dev/null &
victim=$!
wait_for "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO blobs%'"
ok $? "a pusher waits on it, its push row, runs, meta and keys written"
kill -9 $victim
wait $victim 2>/dev/null
pg_sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' AND pid != pg_backend_pid()" >/dev/null
wait $locker 2>/dev/null
wait_for "SELECT (count(*) = 0)::int FROM pg_stat_activity WHERE query LIKE 'INSERT INTO blobs%' AND pid != pg_backend_pid()"
ok $? "killed: its session ends once the lock goes"
after=$(pg_sql "SELECT count(*) || ' ' || (SELECT count(*) FROM keyvals) || ' ' || (SELECT count(*) FROM runs) FROM pushes")
[ "$before" = "$after" ] && [ "$(pg_sql "SELECT count(*) FROM pushes WHERE commit_id = 'killed'")" = 0 ] &&
	[ "$(pg_sql "SELECT count(*) FROM meta WHERE push_id NOT IN (SELECT id FROM pushes)")" = 0 ]
ok $? "no trace of it: pushes, key rows, runs and meta as before ($after)"
"$MMPROF" push -q --store "$PGURL" --commit killed "$tmp/killed.data"
[ "$(pg_sql "SELECT count(*) FROM pushes WHERE commit_id = 'killed'")" = 1 ]; ok $? "the same file pushes after"

# a role that may only insert
pg_sql "CREATE ROLE pusher LOGIN;
GRANT INSERT ON pushes, runs, meta, keys, keyvals, blobs TO pusher;
GRANT USAGE ON SEQUENCE push_ids TO pusher;
GRANT SELECT ON schema_version TO pusher" >/dev/null
PUSHER="postgresql:///mmprof?host=$PGDIR&port=$PGPORT_T&user=pusher"
variant "$tmp/role.data" 98 1
"$MMPROF" push -q --store "$PUSHER" --commit role "$tmp/role.data"; ok $? "the insert-only role pushes"
"$MMPROF" push --store "$PUSHER" --commit role "$tmp/role.data" >"$tmp/out" 2>&1 &&
	grep -q "in the store already" "$tmp/out"
ok $? "and tells a file pushed before without reading"
for t in pushes keyvals keys blobs meta runs; do
	pg_sql -U pusher "SELECT count(*) FROM $t" >/dev/null 2>"$tmp/err" && break
	grep -q "permission denied for table $t" "$tmp/err" || break
done
[ $t = runs ] && grep -q "permission denied" "$tmp/err"; ok $? "it cannot read any table of the store"
pg_sql -U pusher "DELETE FROM pushes" >/dev/null 2>"$tmp/err"
[ $? != 0 ] && grep -q "permission denied for table pushes" "$tmp/err"; ok $? "nor delete"
"$MMPROF" diff "$PUSHER:role" "$PUSHER:killed" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "cannot read: permission denied for table pushes" "$tmp/err"; ok $? "diff as that role: one line, exit 2"

# libpq's settings
PGSSLMODE=require "$MMPROF" push --store "$PGURL_TCP" --commit ssl "$tmp/a.data" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "server does not support SSL, but SSL was required" "$tmp/err"
ok $? "PGSSLMODE=require against a server without SSL: libpq's error, exit 2"
"$MMPROF" push --store "$PGURL_TCP?sslmode=require" --commit ssl "$tmp/a.data" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "server does not support SSL, but SSL was required" "$tmp/err"
ok $? "sslmode=require in the URL: the same"
"$MMPROF" push --store "$PGURL_TCP?sslmode=disable&application_name=t331" --commit aaa111 "$tmp/a.data" >"$tmp/out" 2>&1 &&
	grep -q "in the store already" "$tmp/out"
ok $? "sslmode=disable over TCP works"
"$MMPROF" push --store "$PGURL_TCP?sslmode=bogus" --commit x "$tmp/a.data" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q 'invalid sslmode value: "bogus"' "$tmp/err"; ok $? "a bad setting: libpq's line"
PGHOST=$PGDIR PGPORT=$PGPORT_T PGUSER=mmprof PGDATABASE=mmprof \
	"$MMPROF" push --store postgresql:// --commit aaa111 "$tmp/a.data" >"$tmp/out" 2>&1 &&
	grep -q "in the store already" "$tmp/out"
ok $? "PGHOST, PGPORT, PGUSER, PGDATABASE fill a bare postgresql://"
"$MMPROF" push --store "postgresql://mmprof:s3cr3tpw@127.0.0.1:$PGPORT_T/nosuchdb" --commit x "$tmp/a.data" \
	>"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "postgresql://mmprof:\*\*\*@127.0.0.1:$PGPORT_T/nosuchdb" "$tmp/err" &&
	! grep -q s3cr3tpw "$tmp/out" "$tmp/err"
ok $? "a failed connection names the URL with its password masked"
"$MMPROF" diff "$PGURL&password=s3cr3tpw:aaa111" "$PGURL&password=s3cr3tpw:bbb222" >"$tmp/out" 2>"$tmp/err"
[ $? = 0 ] && grep -q "password=\*\*\*:aaa111" "$tmp/out" && ! grep -q s3cr3tpw "$tmp/out" "$tmp/err"
ok $? "a diff's header names the store with its password masked"

pg_sql "UPDATE schema_version SET version = 99" >/dev/null
"$MMPROF" push --store "$PGURL" --commit x "$tmp/small.data" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "has schema version 99, newer than this mmprof's" "$tmp/err"; ok $? "a newer schema is refused"

done_testing
