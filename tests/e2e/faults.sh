#!/bin/sh
# tests/e2e/faults.sh: faults around the files dump and report read and write,
# each with its exit code and its one line: report -o onto a full disk (every
# format) and report -o cut by a signal keep the previous output whole and
# leave no temporary file; a crashed recorder's file whose pid is now another
# flightrec's reads as truncated, not live; a FIFO input is refused at once;
# a newline in an input name stays escaped; planted symlinks at NAME.pid,
# NAME.lock, NAME.sock and the run dir are refused, the file named.
. "$TESTLIB"
F=$FLIGHTREC
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (mount, unshare)" >&2; exit 77; }
mkdir -p "$T/o" "$T/big"
M="$T/full"
trap 'umount "$M" 2>/dev/null; cleanup' EXIT

# an input whose reports take a while (~0.6 s for perf-script) and are big
record_fg -q --forward -g -e syscalls:sys_enter_prctl -o "$T/big" -- "$HELPERS/prctl_loop" 100000 ||
	fail "record exited $?: $(cat "$T/record.err")"
big=$(ls "$T"/big/*.frec)
PREV='previous good output'

# 1. report -o onto a full disk, every format: exit 2, one line naming the
# output and ENOSPC, the previous output as it was, nothing else left there
mkdir "$M"
mount -t tmpfs -o size=256k tmpfs "$M" || { echo "SKIP: cannot mount a tmpfs" >&2; exit 77; }
for fmt in text folded flamegraph html pprof perf-script json; do
	find "$M" -mindepth 1 -delete
	printf '%s\n' "$PREV" >"$M/out.$fmt"
	dd if=/dev/zero of="$M/fill" bs=4k 2>/dev/null   # until the disk is full
	expect_error 2 "No space left on device" $F report -q --format=$fmt -o "$M/out.$fmt" "$big"
	[ "$(cat "$T/.err")" = "flightrec: $M/out.$fmt: No space left on device" ] ||
		fail "$fmt on a full disk: '$(cat "$T/.err")'"
	[ "$(cat "$M/out.$fmt")" = "$PREV" ] || fail "$fmt: the previous output was not kept"
	left=$(ls -A "$M" | tr '\n' ' ')
	[ "$left" = "fill out.$fmt " ] || fail "$fmt: left on the full disk: $left"
done
pass "report -o onto a full disk: every format says ENOSPC naming the output, keeps the previous one"
# with room again the new report replaces it, its mode kept
rm -f "$M/fill"
chmod 640 "$M/out.json"; chown 65534:65534 "$M/out.json"
$F report -q --format=json -o "$M/out.json" "$FIXTURES/unwind.frec" 2>"$T/ok.err" || fail "report -o with room: $(cat "$T/ok.err")"
[ "$(head -c 15 "$M/out.json")" = '{"traceEvents":' ] || fail "the new report did not replace the old one"
[ "$(stat -c %a "$M/out.json")" = 640 ] || fail "mode $(stat -c %a "$M/out.json"), expected 640"
[ "$(stat -c %u:%g "$M/out.json")" = 65534:65534 ] || fail "owner $(stat -c %u:%g "$M/out.json"), expected 65534:65534"
[ "$(ls -A "$M")" = out.json ] || fail "left: $(ls -A "$M")"
umount "$M"
pass "report -o with room replaces the previous output, mode and owner kept, no temporary file"

# 2. report -o cut by a signal mid-write: killed by it, the previous output
# whole, its temporary file gone. (A background job's SIGINT is ignored by
# the shell, and SIGHUP by everything under nohup: env gives the report the
# defaults back.)
cut_by() {  # SIGNAL NUMBER FORMAT
	d="$T/cut-$1"
	mkdir -p "$d"
	printf '%s\n' "$PREV" >"$d/out"
	env --default-signal=INT,HUP "$F" report -q --format="$3" -o "$d/out" "$big" 2>"$T/cut.err" &
	rp=$!
	i=0
	until ls -A "$d" | grep -q '\.tmp$'; do
		kill -0 "$rp" 2>/dev/null || fail "$1: the report ended before its temporary file was seen"
		i=$((i + 1))
		[ $i -lt 2000 ] || fail "$1: no temporary file beside $d/out"
		sleep 0.005
	done
	sleep 0.05   # mid-write
	kill -"$1" "$rp"
	wait "$rp"
	rc=$?
	[ $rc -eq $((128 + $2)) ] || fail "$1: the report exited $rc, expected $((128 + $2)) (finished first?)"
	[ "$(cat "$d/out")" = "$PREV" ] || fail "$1: the previous output was not kept"
	[ "$(ls -A "$d")" = out ] || fail "$1: left: $(ls -A "$d" | tr '\n' ' ')"
	pass "report -o $3 cut by SIG$1: previous output kept, no temporary file"
}
cut_by INT 2 perf-script
cut_by TERM 15 json
cut_by HUP 1 perf-script

# 3. liveness: a recorder's file being written reads as live (exit 0); a
# crashed recorder's file whose pid now is another live flightrec's reads as
# truncated (exit 1): pid namespaces make the pid the same (1) on purpose
mkdir "$T/live"
record_bg live --forward -e syscalls:sys_enter_prctl -m 4 -o "$T/live" -- sleep 30
sleep 1.5
$F dump "$(ls "$T"/live/*.frec)" >/dev/null 2>"$T/live.err" ||
	fail "dump of a live file exited $?: $(cat "$T/live.err")"
grep -q 'live: still being written' "$T/live.err" || fail "live file: $(cat "$T/live.err")"
kill -INT "$RECPID"; wait "$RECPID"
pass "a file being written by its recorder reads as live: $(cat "$T/live.err")"
if unshare -pf --mount-proc true 2>/dev/null; then
	mkdir "$T/crash" "$T/o2"
	unshare -pf --kill-child=SIGKILL --mount-proc "$F" record -q --forward -e syscalls:sys_enter_prctl \
		-m 4 -o "$T/crash" -- sleep 30 2>"$T/crash.err" &
	up=$!
	sleep 2
	kill -9 "$up"; wait "$up"
	f=$(ls "$T"/crash/*.frec 2>/dev/null)
	[ -n "$f" ] || fail "the recorder in a pid namespace wrote nothing: $(cat "$T/crash.err")"
	# pid 1 of a new namespace: the recorder of the file's meta, alive, a flightrec
	unshare -pf --kill-child=SIGKILL --mount-proc "$F" record -q --backward --no-final-snapshot \
		-e syscalls:sys_enter_prctl -m 4 -o "$T/o2" -- sh -c \
		'cat /proc/1/comm; "$1" dump "$2" >/dev/null 2>"$3/ns-dump.err"; echo $?;
		 "$1" report "$2" >/dev/null 2>"$3/ns-report.err"; echo $?' sh "$F" "$f" "$T" >"$T/ns.out" 2>&1
	[ "$(cat "$T/ns.out" | tr '\n' ' ')" = "flightrec 1 1 " ] ||
		fail "reused pid: '$(cat "$T/ns.out")' (expected pid 1 flightrec, dump 1, report 1): $(cat "$T/ns-dump.err" "$T/ns-report.err")"
	for x in dump report; do
		grep -q 'truncated' "$T/ns-$x.err" && ! grep -q live "$T/ns-$x.err" ||
			fail "reused pid: $x said $(cat "$T/ns-$x.err")"
	done
	pass "a crashed recorder's file, its pid another live flightrec's: truncated, exit 1"
else
	echo "note: no pid namespaces here: the reused-pid case is left out" >&2
fi

# 4. a FIFO (no writer) is refused at once, not read; a directory is read
# as -d reads it (its newest *.frec), one holding none is refused at once
mkfifo "$T/fifo"
mkdir "$T/nofiles"
for cmd in dump report; do
	expect_error 2 "$T/fifo: not a regular file" timeout 10 $F $cmd "$T/fifo"
	expect_error 2 "$T/nofiles: no flightrec file" timeout 10 $F $cmd "$T/nofiles"
done

# 5. a newline in an input name: escaped in the '#' lines and on stderr
nl="$T/a
b.frec"
cp "$big" "$nl"
$F report -q "$nl" >"$T/nl.out" 2>"$T/nl.err" || fail "report of $nl: $(cat "$T/nl.err")"
[ "$(head -n 1 "$T/nl.out")" = "# flightrec report: $T/a\\x0ab.frec" ] ||
	fail "report header: $(head -n 2 "$T/nl.out")"
$F dump "$nl" 2>"$T/nl.err" | head -n 1 >"$T/nl.out"
[ "$(cat "$T/nl.out")" = "# file: $T/a\\x0ab.frec" ] || fail "dump header: $(cat "$T/nl.out")"
head -c 100 "$big" >"$nl"
expect_error 1 "a\\\\x0ab.frec: truncated" $F dump "$nl"
pass "a newline in an input name stays escaped on stdout and stderr"

# 6. planted symlinks in the run dir: refused, the file named, nothing followed
printf 'precious\n' >"$T/victim"
REC="-e syscalls:sys_enter_prctl -m 4 --no-final-snapshot -q -o $T/o"
refused() {  # DIR NAME MESSAGE
	$F record --name "$2" --run-dir "$1" $REC -- sleep 5 >/dev/null 2>"$T/sl.err"
	rc=$?
	[ $rc -eq 2 ] || fail "$1/$2: exit $rc, expected 2: $(cat "$T/sl.err")"
	[ "$(cat "$T/sl.err")" = "flightrec: $3" ] || fail "$1/$2: '$(cat "$T/sl.err")', expected 'flightrec: $3'"
	pass "$(cat "$T/sl.err") -> 2"
}
for x in pid lock sock; do
	mkdir -m 700 "$T/r$x"; ln -s "$T/victim" "$T/r$x/s.$x"
	refused "$T/r$x" s "$T/r$x/s.$x: is a symlink, not ours: refusing"
	[ "$(ls -A "$T/r$x")" = "s.$x" ] || fail "left in $T/r$x: $(ls -A "$T/r$x" | tr '\n' ' ')"
done
mkdir -m 700 "$T/rdangling"; ln -s "$T/nothere" "$T/rdangling/s.lock"
refused "$T/rdangling" s "$T/rdangling/s.lock: is a symlink, not ours: refusing"
[ -e "$T/nothere" ] && fail "a dangling lock symlink was followed: $T/nothere exists"
mkdir -m 700 "$T/realdir"; ln -s "$T/realdir" "$T/rlink"
refused "$T/rlink" s "$T/rlink: the run directory is a symlink"
[ -z "$(ls -A "$T/realdir")" ] || fail "the run dir symlink was followed: $(ls "$T/realdir")"
[ "$(cat "$T/victim")" = precious ] && [ -f "$T/victim" ] && [ ! -L "$T/victim" ] ||
	fail "a planted symlink was followed: the victim changed"
pass "symlinks at the pid file, the lock, the socket and the run dir: refused by name, not followed"
exit 0
