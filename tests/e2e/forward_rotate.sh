#!/bin/sh
# tests/e2e/forward_rotate.sh: record --forward --switch-output SIZE|TIME
# [--max-files N] and snapshots in forward mode. A numbered workload
# (read(-1, NULL, i): sys_enter_read with count = i) shows that every file
# dumps and reports alone (complete, not live, its process named from its own
# table), that each holds a contiguous run of the reads, and that the files
# together hold every read once: nothing lost or doubled at a switch.
. "$TESTLIB"
N=300000
mkdir -p "$T/size" "$T/time" "$T/snap"

# the numbers of the workload's reads in the files given, in file and time order
numbers() {
	for f in "$@"; do
		"$FLIGHTREC" dump "$f" || echo "DUMP-FAILED $f"
	done | awk "$AWKHEX"' /^DUMP-FAILED/ {print; next}
		$4=="SAMPLE" && $6=="syscalls:sys_enter_read" && $8=="fd=0xffffffff" {
			for (i = 9; i <= NF; i++) if ($i ~ /^count=/) print hex(substr($i, 7)) }'
}

# every file alone: dump exits 0 and says nothing (complete, not live), its
# reads are one contiguous run, report exits 0 and names the command
check_alone() {
	for f in "$@"; do
		"$FLIGHTREC" dump "$f" >"$T/one.txt" 2>"$T/one.err" || fail "dump $f exited $?: $(cat "$T/one.err")"
		[ -s "$T/one.err" ] && fail "dump $f said: $(cat "$T/one.err")"
		grep -q '^# trigger.source=' "$T/one.txt" || fail "$f has no TRIGGER: not completed"
		numbers "$f" >"$T/one.seq"
		awk 'NR > 1 && $1 != prev + 1 {exit 1} {prev = $1}' "$T/one.seq" ||
			fail "$f: its reads are not one contiguous run: $(awk 'NR>1 && $1!=p+1 {print p" then "$1; exit} {p=$1}' "$T/one.seq")"
		if [ -s "$T/one.seq" ]; then
			"$FLIGHTREC" report "$f" >"$T/one.rep" 2>"$T/one.err" || fail "report $f exited $?: $(cat "$T/one.err")"
			grep -qE '^ +[0-9.]+% +[0-9]+ +numbered_reads$' "$T/one.rep" ||
				fail "report $f does not name numbered_reads: $(cat "$T/one.rep")"
		fi
	done
}

# the union is 1..N: sorted, each number once, none missing
check_union() {
	sort -n "$1" >"$T/sorted"
	dups=$(uniq -d "$T/sorted" | wc -l)
	[ "$dups" -eq 0 ] || fail "$2: $dups reads in two files, e.g. $(uniq -d "$T/sorted" | head -3 | tr '\n' ' ')"
	awk -v n="$3" -v from="$4" 'NR + from - 1 != $1 {print "first gap before " $1; exit 1} END {if (NR + from - 1 != n) {print NR " reads, expected " n - from + 1; exit 1}}' "$T/sorted" >"$T/gap" ||
		fail "$2: $(cat "$T/gap")"
}

# --- by size: every file reaches it (but the last), the union is complete
record_fg --switch-output 32K -e syscalls:sys_enter_read -o "$T/size" -- \
	"$HELPERS/numbered_reads" $N 20000 50 || fail "record --switch-output 32K exited $?: $(cat "$T/record.err")"
ls "$T"/size/*.part 2>/dev/null && fail "a .part file is left: $(ls "$T/size")"
set -- "$T"/size/*.frec
[ $# -ge 3 ] || fail "--switch-output 32K: $# files for ~250 KB (coded files, ~1.3 B/read): $(cat "$T/record.err")"
n=$(grep -c 'file complete (size)' "$T/record.err")
[ "$n" -eq $(($# - 1)) ] || fail "$n size switches said for $# files: $(cat "$T/record.err")"
i=0
for f in "$@"; do
	i=$((i + 1))
	[ $i -eq $# ] && break
	[ "$(stat -c %s "$f")" -ge 32768 ] || fail "$f: $(stat -c %s "$f") bytes, switched before 32K"
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f: mode $(stat -c %a "$f")"
done
check_alone "$@"
numbers "$@" >"$T/size.seq"
check_union "$T/size.seq" "--switch-output 32K" $N 1
sum=0
for f in "$@"; do sum=$((sum + $("$FLIGHTREC" dump "$f" | awk '$4=="SAMPLE"' | wc -l))); done
grep -q "forward: $sum samples, .* 0 lost" "$T/record.err" ||
	fail "the files hold $sum samples, the recorder counted: $(tail -1 "$T/record.err")"
pass "--switch-output 32K: $# files, each >= 32K but the last, each alone complete; reads 1..$N once each ($sum samples in all, as counted)"

# --- by time, --max-files 2: two files left, the newest, contiguous up to N
record_fg --switch-output 300ms --max-files 2 -e syscalls:sys_enter_read -o "$T/time" -- \
	"$HELPERS/numbered_reads" $N 20000 80 || fail "record --switch-output 300ms exited $?: $(cat "$T/record.err")"
made=$(grep -c 'file complete (time)' "$T/record.err")
[ "$made" -ge 3 ] || fail "--switch-output 300ms over ~1.5 s: $made switches: $(cat "$T/record.err")"
ls "$T"/time/*.part 2>/dev/null && fail "a .part file is left: $(ls "$T/time")"
set -- "$T"/time/*.frec
[ $# -eq 2 ] || fail "--max-files 2 left $# files of $((made + 1)): $*"
last=$(grep 'file complete (time)' "$T/record.err" | tail -1 | sed 's/.*): \([^ ]*\) (.*/\1/')
[ "$1" = "$last" ] || fail "the older file kept is $1, expected the last switched $last"
check_alone "$@"
numbers "$@" >"$T/time.seq"
from=$(sort -n "$T/time.seq" | head -1)
[ "$from" -gt 1 ] || fail "--max-files 2: the oldest files were not deleted (reads from 1)"
check_union "$T/time.seq" "--switch-output 300ms --max-files 2" $N "$from"
pass "--switch-output 300ms --max-files 2: $((made + 1)) files made, the newest 2 kept, reads $from..$N once each"

# --- snapshots in forward mode: the file completes, recording goes on
record_bg snap --forward -e syscalls:sys_enter_read -o "$T/snap" -- "$HELPERS/numbered_reads" $N 10000 100
sleep 0.6
p1=$("$FLIGHTREC" snapshot --name snap 2>"$T/snap.err") || fail "snapshot exited $?: $(cat "$T/snap.err")"
[ -f "$p1" ] || fail "snapshot printed '$p1', not a file"
case "$p1" in "$T"/snap/flightrec-snap-*.frec) ;; *) fail "snapshot file named $p1" ;; esac
kill -0 "$RECPID" 2>/dev/null || fail "the recorder stopped at the snapshot"
check_alone "$p1"
grep -q '^# trigger.source=command$' "$T/one.txt" || fail "$p1: trigger is not the command"
n1=$(wc -l <"$T/one.seq")
[ "$n1" -gt 0 ] || fail "the snapshot's file holds no reads"
sleep 0.6
kill -USR2 "$RECPID"
wait "$RECPID"; rc=$?
BGPIDS=""
[ $rc -eq 0 ] || fail "recorder exited $rc: $(cat "$T/record-snap.err")"
grep -q 'file complete (sigusr2)' "$T/record-snap.err" || fail "SIGUSR2 did not switch: $(cat "$T/record-snap.err")"
set -- "$T"/snap/*.frec
[ $# -eq 3 ] || fail "snapshot, SIGUSR2, end: $# files: $*"
[ "$1" = "$p1" ] || fail "the snapshot's file $p1 is not the first: $*"
check_alone "$@"
grep -q '^# trigger.source=exit$' "$T/one.txt" || fail "the last file's trigger is not the command's exit"
numbers "$@" >"$T/snap.seq"
check_union "$T/snap.seq" "snapshot, SIGUSR2" $N 1
pass "forward snapshot: $p1 complete ($n1 reads), SIGUSR2 the next, recording went on: reads 1..$N once each over 3 files"

# --- --exec-on-snapshot: the hook gets every completed file, the last included
mkdir -p "$T/hook"
record_fg --switch-output 32K --exec-on-snapshot "echo \"\$1\" >>$T/hooked" \
	-e syscalls:sys_enter_read -o "$T/hook" -- "$HELPERS/numbered_reads" 200000 20000 50 ||
	fail "record --switch-output --exec-on-snapshot exited $?: $(cat "$T/record.err")"
ls "$T"/hook/*.frec | sort >"$T/hook.files"
sort "$T/hooked" >"$T/hook.got" 2>/dev/null
[ "$(wc -l <"$T/hook.files")" -ge 2 ] || fail "--exec-on-snapshot run: $(wc -l <"$T/hook.files") files"
cmp -s "$T/hook.files" "$T/hook.got" ||
	fail "--exec-on-snapshot: hooked $(cat "$T/hook.got" | tr '\n' ' '), files $(cat "$T/hook.files" | tr '\n' ' ')"
pass "--exec-on-snapshot with --switch-output: the hook ran once on each of $(wc -l <"$T/hook.files") files, the last included"

# --- usage
expect_error 64 "--switch-output: expected a size" "$FLIGHTREC" record --switch-output 100 -o "$T" -- true
expect_error 64 "--switch-output: expected a size" "$FLIGHTREC" record --switch-output 64x -o "$T" -- true
expect_error 64 "--switch-output: expected a size" "$FLIGHTREC" record --switch-output 10ms -o "$T" -- true
expect_error 64 "--switch-output: .*--backward" "$FLIGHTREC" record --backward --switch-output 1M -o "$T" -a
expect_error 64 "--window-time: .*--forward" "$FLIGHTREC" record --switch-output 1M \
	--window-time 10s -o "$T" -- true
exit 0
