#!/bin/sh
# tests/e2e/systemwide_snapshots.sh: a system-wide recorder of
# syscalls:sys_enter_read, snapshotted twice by `flightrec snapshot` and once
# by SIGUSR2: three readable files, each holding the reads of a known helper
# with its pid and comm.
. "$TESTLIB"

mkdir -p "$T/out"
record_bg sw -a -e syscalls:sys_enter_read --backward -m 256 -o "$T/out" --no-final-snapshot

# check FILE PID N: the file holds >= N reads by PID, all with comm read_loop
check() {
	"$FLIGHTREC" dump "$1" >"$T/d.txt" || fail "dump $1 exited $?"
	got=$(awk -v p="$2" '$4=="SAMPLE" && $6=="syscalls:sys_enter_read" {split($3,a,"/"); if (a[1]==p) { n++; if ($5!="read_loop") bad++ }} END{print n+0, bad+0}' "$T/d.txt")
	set -- "$1" "$2" "$3" $got
	[ "$4" -ge "$3" ] || fail "$1: $4 reads by pid $2, expected >= $3"
	[ "$5" -eq 0 ] || fail "$1: $5 reads by pid $2 without comm read_loop"
	pass "$(basename "$1"): $4 reads by read_loop pid $2"
}

files=""
for how in cmd1 cmd2 usr2; do
	"$HELPERS/read_loop" 1000 &
	hp=$!
	wait $hp || fail "read_loop failed"
	before=$(ls "$T/out" | wc -l)
	if [ $how = usr2 ]; then
		kill -USR2 "$RECPID"
		for _ in $(seq 1 100); do
			[ "$(ls "$T/out"/*.frec 2>/dev/null | wc -l)" -gt "$before" ] && break
			sleep 0.05
		done
		f=$(ls -t "$T/out"/*.frec | head -n 1)
	else
		f=$("$FLIGHTREC" snapshot --name sw) || fail "flightrec snapshot exited $?"
		case "$f" in /*) ;; *) fail "snapshot printed a relative path: $f" ;; esac
	fi
	[ -f "$f" ] || fail "$how: no file ($f)"
	check "$f" "$hp" 1000
	files="$files $f"
done
[ "$(ls "$T/out"/*.frec | wc -l)" -eq 3 ] || fail "expected 3 files, got $(ls "$T/out")"
expect_error 2 "no recorder named 'nobody'" "$FLIGHTREC" snapshot --name nobody
expect_error 2 "already running" "$FLIGHTREC" record --name sw -a -e syscalls:sys_enter_read -o "$T/out"
kill -TERM "$RECPID"
wait "$RECPID" || fail "recorder exited $? after SIGTERM"
BGPIDS=""
[ "$(ls "$T/out"/*.frec | wc -l)" -eq 3 ] || fail "--no-final-snapshot wrote a file on SIGTERM"
[ -e "$FLIGHTREC_RUN_DIR/sw.sock" ] && fail "the control socket outlived the recorder"
grep -q 'snapshot (sigusr2) written' "$T/record-sw.err" || fail "no status line for the SIGUSR2 snapshot"
exit 0
