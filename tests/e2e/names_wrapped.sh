#!/bin/sh
# tests/e2e/names_wrapped.sh: thread names survive the ring that held their
# renames. A process renames itself (prctl PR_SET_NAME) and a thread it
# starts (pthread_setname_np), then both make 61-byte reads long enough for
# the 8-page backward rings to wrap many times (the COMMs of the renames are
# overwritten): in a snapshot after it exited (the names it had at exit:
# sched_process_exit) and in one while it still lives (/proc at the
# snapshot), the report names the main thread and the thread by their new
# names, not by the exec name or a bare tid.
. "$TESTLIB"
mkdir -p "$T/out"

check() {   # FILE PID WHAT
	"$FLIGHTREC" report --sort comm,pid "$1" >"$T/r.txt" 2>&1 || fail "report of $1 exited $?"
	grep -q "^# ring wrapped" "$T/r.txt" || fail "$3: the rings did not wrap: $(grep '^#' "$T/r.txt" | head -12)"
	for n in fr-main-name fr-thread-name; do
		awk -v n="$n" -v p="$2" '$3 == n && $4 == p { f = 1 } END { exit !f }' "$T/r.txt" ||
			fail "$3: no samples of $n ($2): $(grep -v '^#' "$T/r.txt" | head -8)"
	done
	if awk -v p="$2" '$4 == p && $3 !~ /^fr-(main|thread)-name$/ { f = 1 } END { exit !f }' "$T/r.txt"; then
		fail "$3: samples of $2 under another name: $(awk -v p="$2" '$4 == p' "$T/r.txt")"
	fi
	pass "$3: $(awk -v p="$2" '$4 == p {printf "%s %s samples; ", $3, $2}' "$T/r.txt")"
}

record_bg nw --backward -a -m 8 -e syscalls:sys_enter_read --filter 'count == 61' -o "$T/out"
pid=$("$HELPERS/rename_reads" 500) || fail "rename_reads failed"
f=$("$FLIGHTREC" snapshot --name nw) || fail "snapshot exited $?: $(cat "$T/record-nw.err")"
check "$f" "$pid" "exited"

"$HELPERS/rename_reads" 500 stay >"$T/pid" &
BGPIDS="$BGPIDS $!"
for _ in $(seq 1 50); do [ -s "$T/pid" ] && break; sleep 0.1; done
pid=$(cat "$T/pid")
[ -n "$pid" ] || fail "rename_reads stay did not start"
# its reads end after 500 ms; it sleeps on, alive
sleep 0.6
f=$("$FLIGHTREC" snapshot --name nw) || fail "snapshot exited $?: $(cat "$T/record-nw.err")"
check "$f" "$pid" "alive"
kill "$pid"
kill -INT "$RECPID"
wait "$RECPID" || fail "recorder exited $?: $(cat "$T/record-nw.err")"
BGPIDS=""
exit 0
