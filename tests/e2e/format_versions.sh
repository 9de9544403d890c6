#!/bin/sh
# tests/e2e/format_versions.sh: files of every format version read
# (doc/format.md §9): committed version-1 to version-3 files
# (tests/fixtures/v1.frec, written before record coding; v2.frec, every body
# word coded; v3.frec, a system-wide --off-cpu-thresh window whose batches of
# switches are not packed) dump and report exactly as their readers printed
# them (v3's report up to its stacks, which name user functions by this
# host's libraries); a new recording is version 4 with its RECORDS chunks
# coded, and reads back every record it wrote.
. "$TESTLIB"
F=$FLIGHTREC
FIX=$(cd "$(dirname "$TESTLIB")/../fixtures" && pwd)

# reads_as_before V: tests/fixtures/vV.frec is version V (byte 8 of the
# header) and dumps and reports as its version's reader printed it (the
# report up to its off-CPU stacks)
reads_as_before() {
	[ "$(od -An -tu4 -j8 -N4 "$FIX/v$1.frec" | tr -d ' ')" = "$1" ] || fail "v$1.frec is not version $1"
	"$F" dump --no-header -i "$FIX/v$1.frec" >"$T/v$1.dump" || fail "dump of a version-$1 file: rc $?"
	diff -u "$FIX/v$1.dump" "$T/v$1.dump" >&2 || fail "dump of the version-$1 file changed"
	TZ=UTC0 "$F" report -i "$FIX/v$1.frec" >"$T/v$1.full" || fail "report of a version-$1 file"
	tail -n +2 "$T/v$1.full" | sed '/^# off-CPU per function/,$d' >"$T/v$1.report"
	diff -u "$FIX/v$1.report" "$T/v$1.report" >&2 || fail "report of the version-$1 file changed"
	pass "version $1 reads as it did"
}
reads_as_before 1
# version 2: its records' bodies coded whole (a version-3 reading of them
# would change the raw fields)
reads_as_before 2
# version 3: batches of switches as the program wrote them (kind 3)
reads_as_before 3
grep -q 'switches n=[0-9]*$' "$T/v3.dump" || fail "v3.dump holds no unpacked batch"

# version 4: a new file, coded chunks, every read back
mkdir -p "$T/out"
# a 256 KiB ring: with 32 KiB a sanitizer build under make -j2 check's load
# once lost records (the read_loop's runtime reads /proc too), exit 1
record_fg -e syscalls:sys_enter_read -m 64 -o "$T/out" -- "$HELPERS/read_loop" 500 ||
	fail "record: rc $rc: $(cat "$T/record.err")"
f=$(ls "$T"/out/*.frec | head -n 1)
[ "$(od -An -tu4 -j8 -N4 "$f" | tr -d ' ')" = 4 ] || fail "a new file is not version 4"
coded=$(chunks "$f" | awk '$2 == 3 { r++; if ($3 == 1) c++ } $2 != 3 && $3 { bad++ }
	END { print r + 0, c + 0, bad + 0 }')
set -- $coded
[ "$1" -ge 1 ] && [ "$1" = "$2" ] && [ "$3" = 0 ] ||
	fail "RECORDS chunks $1, coded $2, other chunks with flags $3"
n=$("$F" dump --no-header -i "$f" | grep -c 'read_loop .*sys_enter_read') ||
	fail "dump of a version-4 file"
[ "$n" -ge 500 ] || fail "version 4: $n of the loop's 500 reads back"
pass "version 4: $1 RECORDS chunks, all coded; $n reads back"
