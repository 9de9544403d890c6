#!/bin/sh
# tests/e2e/hotplug.sh: a CPU taken offline under a system-wide recorder and
# brought back is recorded again, and a CPU offline at the start is recorded
# once it comes online, in every mode (backward, --keep, --forward), with two
# events: the recorder says it, opens the CPU's events (again into the same
# rings, or its first), the samples after it on CPU 1 are attributed to their
# events (a forward file gets the new events' ids), and the file says the
# gap (report's and dump's header, the HTML timeline's CPU row; a new CPU's
# from the start); a per-task recording says a CPU new since the start (its
# events do not cover it) and records on a CPU that went and returned. Runs
# alone, last (Makefile.am): the other tests pin work to CPU 1.
. "$TESTLIB"
ONLINE=/sys/devices/system/cpu/cpu1/online
[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU: none to take offline" >&2; exit 77; }
[ -w "$ONLINE" ] && [ "$(cat "$ONLINE")" = 1 ] ||
	{ echo "SKIP: $ONLINE is not writable here (no CPU hotplug)" >&2; exit 77; }
CG=""
back() { echo 1 >"$ONLINE" 2>/dev/null; cleanup; [ -z "$CG" ] || rmdir "$CG" 2>/dev/null; }
trap back EXIT INT TERM
mkdir -p "$T/out"

# run on CPU 1: busy 1 s (cpu-clock at 999 Hz), then 777 numbered reads: the
# last one's sys_enter_read has count=0x309
work() {
	taskset -c 1 "$HELPERS/busy" 1000 || fail "$1: busy on CPU 1 failed"
	taskset -c 1 "$HELPERS/numbered_reads" 777 || fail "$1: numbered_reads on CPU 1 failed"
}

# $1 what, $2 the file, $3 min gap seconds: the gap in report, dump, HTML; the
# work's samples on CPU 1 after it, under their events; nothing unusable
check_file() {
	"$FLIGHTREC" report "$2" >"$T/r.txt" 2>"$T/r.err" || fail "$1: report exited $?: $(cat "$T/r.err")"
	grep -q 'could not be used' "$T/r.err" && fail "$1: report: $(cat "$T/r.err")"
	gap=$(sed -n 's/^# CPU 1 offline from \([0-9.]*\) to \([0-9.]*\) (\([0-9.]*\) s).*/\1 \2 \3/p' "$T/r.txt" | tail -1)
	[ -n "$gap" ] || fail "$1: the report does not show the gap: $(grep '^#' "$T/r.txt" | head -12)"
	set -- "$1" "$2" "$3" $gap
	to=$5
	awk -v d="$6" -v m="$3" 'BEGIN { exit !(d >= m) }' || fail "$1: the gap is $6 s, at least $3 s expected"
	"$FLIGHTREC" dump "$2" >"$T/d.txt" 2>"$T/d.err" || fail "$1: dump exited $?: $(cat "$T/d.err")"
	grep -q 'could not be used' "$T/d.err" && fail "$1: dump: $(cat "$T/d.err")"
	grep -q '^# CPU 1 offline from' "$T/d.txt" || fail "$1: dump does not show the gap"
	"$FLIGHTREC" report --format=html -o "$T/hp.html" "$2" 2>/dev/null || fail "$1: report --format=html exited $?"
	grep -q '<rect class="offline"[^>]*><title>cpu 1 offline from' "$T/hp.html" ||
		fail "$1: the HTML timeline does not shade the gap"
	n=$(awk -v t="$to" '$4 == "SAMPLE" && $2 == "[001]" && $1 > t && $6 == "cpu-clock" { n++ } END { print n + 0 }' "$T/d.txt")
	[ "$n" -ge 200 ] || fail "$1: $n cpu-clock samples on CPU 1 after $to (busy ran 1 s at 999 Hz)"
	r=$(awk -v t="$to" '$4 == "SAMPLE" && $2 == "[001]" && $1 > t && $6 == "syscalls:sys_enter_read" && / count=0x00000309/ { n++ } END { print n + 0 }' "$T/d.txt")
	[ "$r" -ge 1 ] || fail "$1: numbered_reads' read 777 on CPU 1 not attributed to sys_enter_read: $(awk '$2 == "[001]" && / count=0x00000309/' "$T/d.txt" | head -3)"
}

# $1: the recorder's name; stops it, BGPIDS cleared
stop_rec() {
	kill -INT "$RECPID"
	wait "$RECPID" || fail "$1: recorder exited $?: $(cat "$T/record-$1.err")"
	BGPIDS=""
}

EVENTS="-e cpu-clock -F 999 -e syscalls:sys_enter_read"
for mode in backward keep forward; do
	case $mode in
	backward) args="--backward -m 2048" ;;
	keep) args="--keep 30s" ;;
	forward) args=--forward ;;
	esac
	rm -f "$T"/out/*.frec
	record_bg hp -a $EVENTS $args -o "$T/out"
	echo 0 >"$ONLINE" || fail "$mode: cannot take CPU 1 offline"
	sleep 1
	echo 1 >"$ONLINE" || fail "$mode: cannot bring CPU 1 back"
	work "$mode"
	if [ $mode != forward ]; then
		f=$("$FLIGHTREC" snapshot --name hp) || fail "$mode: snapshot exited $?"
	fi
	stop_rec hp
	[ $mode = forward ] && f=$(ls "$T"/out/*.frec)
	grep -q 'CPU 1 went offline' "$T/record-hp.err" && grep -q 'CPU 1 is back online after' "$T/record-hp.err" ||
		fail "$mode: the recorder did not say it: $(cat "$T/record-hp.err")"
	check_file "$mode" "$f" 0.9
	pass "$mode: CPU 1 offline and back: said, $n cpu-clock samples and read 777 on it after $to under their events, the gap in the header"
done

# a CPU offline at the start that comes online: recorded from then on, its
# gap from the start
for mode in backward keep forward; do
	case $mode in
	backward) args="--backward -m 2048" ;;
	keep) args="--keep 30s" ;;
	forward) args=--forward ;;
	esac
	rm -f "$T"/out/*.frec
	echo 0 >"$ONLINE" || fail "$mode: cannot take CPU 1 offline"
	record_bg late -a $EVENTS $args -o "$T/out"
	sleep 1
	echo 1 >"$ONLINE" || fail "$mode: cannot bring CPU 1 online"
	work "$mode, late"
	if [ $mode != forward ]; then
		f=$("$FLIGHTREC" snapshot --name late) || fail "$mode, late: snapshot exited $?"
	fi
	stop_rec late
	[ $mode = forward ] && f=$(ls "$T"/out/*.frec)
	grep -q 'CPU 1 came online after the start ([0-9.]* s in): recording it' "$T/record-late.err" ||
		fail "$mode, late: not said: $(cat "$T/record-late.err")"
	grep -q 'not recorded' "$T/record-late.err" && fail "$mode, late: $(cat "$T/record-late.err")"
	check_file "$mode, late" "$f" 0.9
	start=$(sed -n 's/^# recorder.s run: .*(event clock \([0-9.]*\) to .*/\1/p' "$T/r.txt")
	from=$(sed -n 's/^# CPU 1 offline from \([0-9.]*\) to .*/\1/p' "$T/r.txt" | head -1)
	awk -v a="$start" -v b="$from" 'BEGIN { exit !(a != "" && b - a < 0.01 && a - b < 0.01) }' ||
		fail "$mode, late: the gap begins at $from, not at the recording's start $start"
	pass "$mode: CPU 1 online after the start: said, $n cpu-clock samples and read 777 on it under their events, its gap from the start"
done
# a cgroup target (-G, forward): a CPU online after the start records the
# cgroup's tasks on it
root=$(awk '$3=="cgroup2" {print $2; exit}' /proc/self/mounts)
if [ -n "$root" ] && mkdir "$root/frhp-$$" 2>/dev/null; then
	CG="$root/frhp-$$"
	rm -f "$T"/out/*.frec
	echo 0 >"$ONLINE" || fail "cgroup: cannot take CPU 1 offline"
	record_bg cg -G "frhp-$$" $EVENTS --forward -o "$T/out"
	# the cgroup's samples on CPU 0 span the gap (the timeline is theirs)
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" && exec taskset -c 0 "$1/busy" 2500' "$CG" "$HELPERS" &
	hog=$!
	sleep 1
	echo 1 >"$ONLINE" || fail "cgroup: cannot bring CPU 1 online"
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" && taskset -c 1 "$1/busy" 1000 &&
		taskset -c 1 "$1/numbered_reads" 777' "$CG" "$HELPERS" || fail "cgroup: the work failed"
	wait "$hog"
	stop_rec cg
	f=$(ls "$T"/out/*.frec)
	grep -q 'CPU 1 came online after the start ([0-9.]* s in): recording it' "$T/record-cg.err" ||
		fail "cgroup: not said: $(cat "$T/record-cg.err")"
	check_file "cgroup, late" "$f" 0.9
	pass "cgroup: CPU 1 online after the start: $n cpu-clock samples and read 777 of the cgroup's tasks on it"
else
	echo "cgroup v2 not mounted or not writable: the -G case skipped"
fi

# the service's events (--off-cpu-thresh: BPF writes each CPU's waits into
# its event): a CPU online after the start gets its BPF part too
service_defaults
rm -f "$T"/out/*.frec
echo 0 >"$ONLINE" || fail "offcpu: cannot take CPU 1 offline"
# shellcheck disable=SC2086
record_bg oc -a $events -o "$T/out"
grep -q 'BPF programs could not be loaded' "$T/record-oc.err" &&
	fail "offcpu: the BPF programs were refused: $(cat "$T/record-oc.err")"
echo 1 >"$ONLINE" || fail "offcpu: cannot bring CPU 1 online"
sleep 0.2
taskset -c 1 "$HELPERS/offcpu_thresh" >"$T/work" || fail "offcpu: the workload exited $?"
f=$("$FLIGHTREC" snapshot --name oc) || fail "offcpu: snapshot exited $?"
stop_rec oc
grep -q 'CPU 1 came online after the start ([0-9.]* s in): recording it' "$T/record-oc.err" ||
	fail "offcpu: not said: $(cat "$T/record-oc.err")"
"$FLIGHTREC" report --off-cpu --comm oct-long -i "$f" >"$T/long.txt" 2>"$T/long.err" ||
	fail "offcpu: report --off-cpu exited $?: $(cat "$T/long.err")"
grep -q '^# stacks of waits (record --off-cpu-thresh [0-9.]* ms): every S and D wait of [0-9.]* ms or more: [4-9] with their stack' "$T/long.txt" ||
	fail "offcpu: oct-long's waits on CPU 1 without their stacks: $(grep '^#' "$T/long.txt" | head -20)"
pass "offcpu: the waits on a CPU online after the start have their stacks (BPF)"

# a per-task recording (a command): its events follow its tasks on the CPUs
# online at the start; a CPU new since then has none: said on stderr and in
# the report's header, not silent; a CPU that goes and returns says nothing
# (its tasks' events resume there) and records the work on it
mkdir -p "$T/pt"
echo 0 >"$ONLINE" || fail "per-task: cannot take CPU 1 offline"
(sleep 0.5; echo 1 >"$ONLINE") &
up=$!
record_fg -e cpu-clock -F 499 -o "$T/pt" -- sh -c "sleep 1; '$HELPERS/busy' 300" ||
	fail "per-task: record exited $?: $(cat "$T/record.err")"
wait "$up"
grep -q "CPU 1 came online after the start: a per-task recording .* not recorded" "$T/record.err" ||
	fail "per-task: a CPU new since the start not said: $(cat "$T/record.err")"
"$FLIGHTREC" report "$T"/pt/*.frec >"$T/pt.txt" 2>&1 || fail "per-task: report exited $?"
grep -q '^# CPUs 1 came online after the recording started: not recorded' "$T/pt.txt" ||
	fail "per-task: the report's header does not say it: $(grep '^#' "$T/pt.txt" | head)"
rm -f "$T"/pt/*.frec
(sleep 0.3; echo 0 >"$ONLINE"; sleep 0.5; echo 1 >"$ONLINE") &
up=$!
record_fg -e cpu-clock -F 999 -o "$T/pt" -- sh -c "sleep 1.2; taskset -c 1 '$HELPERS/busy' 500" ||
	fail "per-task, back: record exited $?: $(cat "$T/record.err")"
wait "$up"
grep -q 'CPU 1' "$T/record.err" && fail "per-task, back: said $(cat "$T/record.err")"
n=$("$FLIGHTREC" dump "$T"/pt/*.frec | awk '$4 == "SAMPLE" && $2 == "[001]" { n++ } END { print n + 0 }')
[ "$n" -ge 200 ] || fail "per-task, back: $n samples on CPU 1 after it returned (busy ran 0.5 s there at 999 Hz)"
pass "per-task: a CPU new since the start said (stderr, report); one that went and returned: $n samples on it after"
exit 0
