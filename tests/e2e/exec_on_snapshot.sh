#!/bin/sh
# tests/e2e/exec_on_snapshot.sh: --exec-on-snapshot runs its command after
# each snapshot with the file as $1 and in $FLIGHTREC_FILE (the hook copies
# it: the copy is readable); a failing hook is one line on stderr and the
# recorder goes on; the final snapshot's hook runs too.
. "$TESTLIB"

mkdir -p "$T/out" "$T/copies"
hook='[ "$1" = "$FLIGHTREC_FILE" ] || exit 9; case "$1" in *-002.frec) exit 3 ;; esac; cp "$1" "'"$T"'/copies/"'
record_bg hk -e syscalls:sys_enter_read -m 256 -o "$T/out" --exec-on-snapshot "$hook"
"$HELPERS/read_loop" 100
f1=$("$FLIGHTREC" snapshot --name hk) || fail "snapshot 1 exited $?"
f2=$("$FLIGHTREC" snapshot --name hk) || fail "snapshot 2 exited $?"
for _ in $(seq 1 100); do
	[ -f "$T/copies/$(basename "$f1")" ] && grep -q 'exit status 3' "$T/record-hk.err" && break
	sleep 0.05
done
c1="$T/copies/$(basename "$f1")"
[ -f "$c1" ] || fail "the hook did not copy $f1"
cmp -s "$f1" "$c1" || fail "the hook's copy differs from $f1"
"$FLIGHTREC" dump "$c1" >/dev/null || fail "dump of the hook's copy exited $?"
[ "$(grep -c 'exec-on-snapshot' "$T/record-hk.err")" -eq 1 ] ||
	fail "expected one line for the failing hook: $(cat "$T/record-hk.err")"
grep -q "^flightrec: --exec-on-snapshot: .*$(basename "$f2"): exit status 3" "$T/record-hk.err" ||
	fail "the failing hook's line: $(grep exec-on "$T/record-hk.err")"
kill -0 "$RECPID" 2>/dev/null || fail "the recorder stopped after a failing hook"
f3=$("$FLIGHTREC" snapshot --name hk) || fail "snapshot 3 exited $? after a failing hook"
kill -TERM "$RECPID"; wait "$RECPID"; rc=$?; BGPIDS=""
[ "$rc" -eq 0 ] || fail "recorder exited $rc"
n=$(ls "$T/copies" | wc -l)
[ "$n" -eq 3 ] || fail "expected 3 copies (snapshots 1, 3 and the final one), got $n: $(ls "$T/copies")"
pass "the hook copied $n files, the failing one said once: $(grep exec-on "$T/record-hk.err")"
exit 0
