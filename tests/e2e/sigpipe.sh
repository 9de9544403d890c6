#!/bin/sh
# tests/e2e/sigpipe.sh: a recorder whose stderr is a pipe with no reader left
# (`record ... 2>&1 | logger` when the logger restarts, `| head`) goes on: its
# status lines are dropped, not fatal (SIGPIPE killed it at the next one,
# exit 141, leaving its pid, lock and socket files). Two snapshots after the
# reader left, then SIGTERM: exit 0, three files, the run directory clean;
# a recorded command still gets SIGPIPE's default.
. "$TESTLIB"

mkdir -p "$T/out" "$T/cmd"
mkfifo "$T/err"
head -c 1 <"$T/err" >/dev/null &
READER=$!
"$FLIGHTREC" record -a -e cpu-clock -F 99 --name pipe -o "$T/out" 2>"$T/err" &
RECPID=$!
BGPIDS="$BGPIDS $RECPID"
wait "$READER"   # it read the first byte of the first status line and left
for _ in $(seq 1 100); do
	[ -S "$FLIGHTREC_RUN_DIR/pipe.sock" ] && break
	kill -0 "$RECPID" 2>/dev/null || { wait "$RECPID"; rc=$?
		[ "$rc" -eq 3 ] && { echo "SKIP: the kernel refuses perf_event_open here" >&2; exit 77; }
		fail "the recorder exited $rc before its socket (141: SIGPIPE)"; }
	sleep 0.1
done
for i in 1 2; do
	"$FLIGHTREC" snapshot --name pipe >/dev/null 2>&1 || fail "snapshot $i exited $?"
	kill -0 "$RECPID" 2>/dev/null || { wait "$RECPID"; fail "the recorder died after snapshot $i: exit $?"; }
done
kill -TERM "$RECPID"
wait "$RECPID"; rc=$?
BGPIDS=""
[ "$rc" -eq 0 ] || fail "the recorder exited $rc on SIGTERM (141: SIGPIPE)"
n=$(ls "$T/out"/*.frec 2>/dev/null | wc -l)
[ "$n" -eq 3 ] || fail "$n files, expected two snapshots and the final one: $(ls "$T/out")"
left=$(ls "$FLIGHTREC_RUN_DIR" 2>/dev/null | grep '^pipe\.' || true)
[ -z "$left" ] || fail "left in the run directory: $left"
pass "stderr's reader gone: two snapshots and the final one written, exit 0, nothing left"

# the recorded command: SIGPIPE as it would have it without the recorder
# (SigIgn's bit 12 is SIGPIPE, 13)
"$FLIGHTREC" record -q -e cpu-clock -o "$T/cmd" -- sh -c 'cat /proc/$$/status' >"$T/status" ||
	fail "record -- sh exited $?"
ign=$(awk '/^SigIgn:/ {print $2}' "$T/status")
[ -n "$ign" ] || fail "no SigIgn line: $(cat "$T/status")"
[ $(( 0x$ign & 0x1000 )) -eq 0 ] || fail "the recorded command ignores SIGPIPE (SigIgn $ign): it inherited the recorder's"
pass "the recorded command gets SIGPIPE's default (SigIgn $ign)"
