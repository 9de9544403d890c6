# shellcheck shell=bash
# bench/pglib.sh: the throwaway PostgreSQL cluster of the real-server benches
# (pg.sh, pg_stall.sh, bpfcost.sh), sourced after `set -u`:
#   pg_find NAME     pgbin: the newest installed server (exit 77 without one, or not root)
#   pg_tmp NAME      tmp (mode 0755, data/ sock/ rec/ in it) and a private port
#   pg_start [OPTS]  initdb in tmp/data, pg_ctl on the port and socket directory
#                    (OPTS: more server -c settings), pgbench -i -s 10
#   pg_stop          the server stopped, tmp removed
#   as_pg CMD...     CMD as the postgres user; pgb ARGS... pgbench against the cluster
#   stop_pgbench     a pgb started in the background (its pid in pb) stopped
#   pgb_started FILE that pgb's first progress line is in FILE (within 10 s)
#   pg_pin, pgb_pin  (optional) a command prefix for the server and for pgbench,
#                    e.g. "taskset -c 1" (bench/pg_switch.sh --pin)
pg_find() {
	pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	[ -x "$pgbin/initdb" ] || { echo "$1: PostgreSQL not installed (apt-get install postgresql postgresql-contrib)" >&2; exit 77; }
	[ "$(id -u)" = 0 ] || { echo "$1: needs root (system-wide recording)" >&2; exit 77; }
}
as_pg() { runuser -u postgres -- "$@"; }
# shellcheck disable=SC2086
pgb() { ${pgb_pin:-} runuser -u postgres -- "$pgbin/pgbench" -h "$tmp/sock" -p "$port" "$@" postgres; }
pg_tmp() {
	tmp=$(mktemp -d "/tmp/fr$1.XXXXXX")
	chmod 755 "$tmp"
	mkdir -p "$tmp/data" "$tmp/sock" "$tmp/rec"
	chown postgres "$tmp/data" "$tmp/sock"
	port=$((20000 + RANDOM % 20000))
}
pg_start() {
	as_pg "$pgbin/initdb" -D "$tmp/data" -A trust >/dev/null || exit 1
	# shellcheck disable=SC2086
	${pg_pin:-} runuser -u postgres -- "$pgbin/pg_ctl" -D "$tmp/data" -l "$tmp/data/log" -w \
		-o "-p $port -k $tmp/sock -c listen_addresses= -c shared_buffers=128MB ${1:-}" start >/dev/null || exit 1
	pgb -i -s 10 -q >/dev/null 2>&1 || { echo "pgbench -i failed" >&2; exit 1; }
}
pg_stop() {
	as_pg "$pgbin/pg_ctl" -D "$tmp/data" -m fast stop >/dev/null 2>&1
	rm -rf "$tmp"
}
# pb (set by the caller, "" for none) is the subshell running pgb, runuser
# under it, pgbench under that: SIGTERM to pgbench itself (runuser,
# signalled, waits 2 s before it exits; a background job of a
# non-interactive shell ignores SIGINT, so pgbench would run out its -T),
# then the subshell waited for (it ends with them; its note "Terminated"
# may end the progress file)
pb=""
stop_pgbench() {
	local p kids
	[ -n "$pb" ] || return 0
	p=$pb
	while kids=$(pgrep -P "$p"); do p=${kids%%[!0-9]*}; done
	[ "$p" != "$pb" ] && kill -TERM "$p" 2>/dev/null
	wait "$pb" 2>/dev/null
	pb=""
}
# pgb_started FILE: the pgb in pb has written its first progress line to
# FILE (-P), within 10 s; else its output is shown and it fails
pgb_started() {
	for _ in $(seq 1 100); do
		grep -q '^progress: ' "$1" && return 0
		kill -0 "$pb" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^progress: ' "$1" && return 0
	echo "pgbench did not start:" >&2
	cat "$1" >&2
	return 1
}
