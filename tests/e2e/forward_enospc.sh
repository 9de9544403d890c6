#!/bin/sh
# tests/e2e/forward_enospc.sh: --forward into a filesystem that fills up: the
# readers say so in one line, drop (and count) what cannot be written, never
# leave a torn chunk, and write again once space is freed. The file stays
# readable, holds reads from after the space came back, and the recorder
# exits 1 (partial) with the loss on its last line; dump says the loss and
# exits 1.
. "$TESTLIB"
mnt="$T/small"
mkdir -p "$mnt"
mount -t tmpfs -o size=3m tmpfs "$mnt" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs here" >&2; exit 77; }
umount_it() { umount "$mnt" 2>/dev/null; }
trap 'umount_it; cleanup' EXIT
mkdir -p "$mnt/out"
# leave about 200 KiB: a few chunks fit, then ENOSPC
head -c 2900000 /dev/zero >"$mnt/filler" 2>/dev/null
record_bg full --forward -a -e syscalls:sys_enter_read -o "$mnt/out"
"$HELPERS/read_loop" 400000 & wait $!
for _ in $(seq 1 50); do
	grep -q 'dropping records until writes succeed' "$T/record-full.err" && break
	"$HELPERS/read_loop" 100000 & wait $!
done
grep -q 'dropping records until writes succeed' "$T/record-full.err" ||
	fail "no write failure said: $(cat "$T/record-full.err")"
rm -f "$mnt/filler"
"$HELPERS/read_loop" 5000 & late=$!
wait $late
sleep 1.5
kill -INT "$RECPID"
wait "$RECPID"; rc=$?
BGPIDS=""
[ $rc -eq 1 ] || fail "recorder exited $rc, expected 1 (partial): $(cat "$T/record-full.err")"
grep -q 'writes resumed' "$T/record-full.err" || fail "resumption not said: $(cat "$T/record-full.err")"
n=$(grep -c 'dropping records until writes succeed' "$T/record-full.err")
f=$(ls "$mnt"/out/*.frec)
"$FLIGHTREC" dump "$f" >"$T/d.txt" 2>"$T/d.err"; drc=$?
# exit 1 for the loss the file counts, and that only: no torn chunk
[ $drc -eq 1 ] && [ "$(wc -l <"$T/d.err")" -eq 1 ] && grep -q 'records lost while recording' "$T/d.err" ||
	fail "dump of the file exited $drc: $(cat "$T/d.err")"
got=$(awk -v p=$late '$4=="SAMPLE" {split($3,a,"/"); if (a[1]==p) n++} END{print n+0}' "$T/d.txt")
[ "$got" -ge 5000 ] || fail "$got reads of the process after space was freed, expected >= 5000"
lost=$(awk '/^# cpu/ {for(i=1;i<=NF;i++) if ($i ~ /^lost_records=/) {split($i,a,"="); s+=a[2]}} END{print s+0}' "$T/d.txt")
[ "$lost" -gt 0 ] || fail "the file does not count the dropped records"
pass "ENOSPC said $n time(s), writes resumed, $got reads after, $lost records counted lost, exit 1"
