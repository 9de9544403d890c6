#!/bin/sh
# tests/e2e/progress.sh: long work shows progress on a terminal and nothing
# elsewhere: `flightrec snapshot --after` counts the seconds it waits, and
# `record --forward` the MiB it writes, each on one rewritten stderr line.
. "$TESTLIB"
command -v script >/dev/null || { echo "SKIP: script(1) missing" >&2; exit 77; }
mkdir -p "$T/o"
record_bg pg -a -e syscalls:sys_enter_read --backward -m 16 -o "$T/o" --no-final-snapshot
script -qec "FLIGHTREC_RUN_DIR='$FLIGHTREC_RUN_DIR' '$FLIGHTREC' snapshot --name pg --after 2500ms" /dev/null >"$T/tty.txt" 2>&1 ||
	fail "snapshot on a terminal exited $?: $(cat "$T/tty.txt")"
grep -q 'waiting for the recorder: 1 s' "$T/tty.txt" || fail "no progress on a terminal: $(cat -v "$T/tty.txt")"
grep -q '\.frec' "$T/tty.txt" || fail "no file named: $(cat -v "$T/tty.txt")"
"$FLIGHTREC" snapshot --name pg --after 1500ms >"$T/plain.txt" 2>"$T/plain.err" || fail "snapshot exited $?"
[ ! -s "$T/plain.err" ] || fail "progress written when stderr is not a terminal: $(cat -v "$T/plain.err")"
pass "snapshot --after: progress on a terminal only"
script -qec "FLIGHTREC_RUN_DIR='$FLIGHTREC_RUN_DIR' timeout -s INT 2.5 '$FLIGHTREC' record --forward -e syscalls:sys_enter_read -a -o '$T/o' --name fw" /dev/null >"$T/fw.txt" 2>&1
grep -q 'MiB' "$T/fw.txt" || fail "record --forward shows no progress on a terminal: $(cat -v "$T/fw.txt" | tail -3)"
pass "record --forward: progress on a terminal"
