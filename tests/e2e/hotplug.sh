#!/bin/sh
# tests/e2e/hotplug.sh: a CPU taken offline under a system-wide recorder and
# brought back is recorded again, in every mode (backward, --keep,
# --forward): the recorder says both, opens the CPU's events again into the
# same rings, and the file says the gap (report's and dump's header, the
# HTML timeline's CPU row). A CPU
# that comes online after the start is said not to be recorded. Runs alone,
# last (Makefile.am): the other tests pin work to CPU 1.
. "$TESTLIB"
ONLINE=/sys/devices/system/cpu/cpu1/online
[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU: none to take offline" >&2; exit 77; }
[ -w "$ONLINE" ] && [ "$(cat "$ONLINE")" = 1 ] ||
	{ echo "SKIP: $ONLINE is not writable here (no CPU hotplug)" >&2; exit 77; }
back() { echo 1 >"$ONLINE" 2>/dev/null; cleanup; }
trap back EXIT INT TERM
mkdir -p "$T/out"

for mode in backward keep forward; do
	case $mode in
	backward) args=--backward ;;
	keep) args="--keep 30s" ;;
	forward) args=--forward ;;
	esac
	rm -f "$T"/out/*.frec
	record_bg hp -a -e cpu-clock -F 999 $args -o "$T/out"
	echo 0 >"$ONLINE" || fail "$mode: cannot take CPU 1 offline"
	sleep 1
	echo 1 >"$ONLINE" || fail "$mode: cannot bring CPU 1 back"
	taskset -c 1 "$HELPERS/busy" 1000 || fail "$mode: busy on CPU 1 failed"
	if [ $mode != forward ]; then
		f=$("$FLIGHTREC" snapshot --name hp) || fail "$mode: snapshot exited $?"
	fi
	kill -INT "$RECPID"
	wait "$RECPID" || fail "$mode: recorder exited $?: $(cat "$T/record-hp.err")"
	BGPIDS=""
	[ $mode = forward ] && f=$(ls "$T"/out/*.frec)
	grep -q 'CPU 1 went offline' "$T/record-hp.err" && grep -q 'CPU 1 is back online after' "$T/record-hp.err" ||
		fail "$mode: the recorder did not say it: $(cat "$T/record-hp.err")"
	"$FLIGHTREC" report "$f" >"$T/r.txt" 2>&1 || fail "$mode: report exited $?"
	to=$(sed -n 's/^# CPU 1 offline from [0-9.]* to \([0-9.]*\) .*/\1/p' "$T/r.txt")
	[ -n "$to" ] || fail "$mode: the report does not show the gap: $(grep '^#' "$T/r.txt" | head -12)"
	"$FLIGHTREC" dump "$f" >"$T/d.txt" 2>&1 || fail "$mode: dump exited $?"
	grep -q '^# CPU 1 offline from' "$T/d.txt" || fail "$mode: dump does not show the gap"
	"$FLIGHTREC" report --format=html -o "$T/hp.html" "$f" 2>/dev/null || fail "$mode: report --format=html exited $?"
	grep -q '<rect class="offline"[^>]*><title>cpu 1 offline from' "$T/hp.html" ||
		fail "$mode: the HTML timeline does not shade the gap"
	# busy's samples on CPU 1 after it came back
	n=$(awk -v t="$to" '$4 == "SAMPLE" && $2 == "[001]" && $1 > t { n++ } END { print n + 0 }' "$T/d.txt")
	[ "$n" -ge 200 ] || fail "$mode: $n samples on CPU 1 after it came back at $to (busy ran 1 s at 999 Hz)"
	pass "$mode: CPU 1 offline and back: said, $n samples on it after $to, the gap in the header"
done

# a CPU that was offline at the start and comes online: said, not recorded
echo 0 >"$ONLINE" || fail "cannot take CPU 1 offline"
record_bg late -a -e cpu-clock -F 99 -o "$T/out"
echo 1 >"$ONLINE" || fail "cannot bring CPU 1 back"
sleep 0.5
f=$("$FLIGHTREC" snapshot --name late) || fail "snapshot exited $?"
kill -INT "$RECPID"
wait "$RECPID" || fail "recorder exited $?"
BGPIDS=""
grep -q 'CPU 1 came online after the recording started: it is not recorded' "$T/record-late.err" ||
	fail "not said: $(cat "$T/record-late.err")"
"$FLIGHTREC" report "$f" 2>&1 | grep -q '^# CPUs 1 came online after the recording started: not recorded' ||
	fail "the report does not say it: $("$FLIGHTREC" report "$f" 2>&1 | grep '^#' | head -12)"
pass "a CPU online after the start: said by the recorder and the report"
exit 0
