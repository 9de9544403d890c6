#!/bin/sh
# tests/e2e/offcpu_bpftrace.sh: report --off-cpu against bpftrace's
# offcputime (switch-out to switch-in on sched:sched_switch, summed in the
# kernel) over the same run of a real pipeline (sleep, then head | cat, the
# binaries copied under names of their own so nothing else on the host
# counts): off-CPU time per thread name and state (S, D, R), within 5% where
# bpftrace saw at least 20 ms. The same interval: a task recorded per command
# is seen until perf_event_exit_task (its EXIT record; its events are gone
# after), so bpftrace counts no wait that begins after the task's exit began
# (sched_process_exit, the tracepoint nearest; kprobes may be missing).
# Skips (77) only where the kernel refuses BPF.
. "$TESTLIB"

command -v bpftrace >/dev/null 2>&1 || { echo "SKIP: bpftrace is not installed" >&2; exit 77; }
# the sanitizer build (make distcheck) times waits of an instrumented
# recorder against an uninstrumented reference: the plain build's make check
# is where the two are compared
if grep -q __asan_init "$FLIGHTREC" 2>/dev/null; then
	echo "SKIP: a sanitizer build of flightrec: its timing is not the reference's (make check runs this)" >&2
	exit 77
fi
cp /bin/sleep "$T/oc_sleep" && cp "$(command -v head)" "$T/oc_head" && cp /bin/cat "$T/oc_cat" ||
	fail "cannot copy sleep, head and cat"

# the states as report --off-cpu's: 0 dead (no wait), 1 S, 2 D, 3 R (preempted)
cat >"$T/off.bt" <<'EOF'
BEGIN { printf("ready\n"); }
tracepoint:sched:sched_process_exit { @gone[tid] = 1; }
tracepoint:sched:sched_switch
{
	if ((args->prev_comm == "oc_sleep" || args->prev_comm == "oc_head" ||
	     args->prev_comm == "oc_cat") && !@gone[args->prev_pid]) {
		@start[args->prev_pid] = nsecs;
		$s = args->prev_state & 0xff;
		@st[args->prev_pid] = $s == 0 ? 3 : ($s & 0x30 ? 0 : ($s & 2 ? 2 : 1));
	}
	$t = @start[args->next_pid];
	if ($t) {
		$k = @st[args->next_pid];
		if ($k) {
			@off[args->next_comm, $k] = sum(nsecs - $t);
		}
		delete(@start[args->next_pid]);
		delete(@st[args->next_pid]);
	}
}
END { clear(@start); clear(@st); clear(@gone); }
EOF
bpftrace "$T/off.bt" >"$T/bt.out" 2>"$T/bt.err" &
BT=$!
BGPIDS="$BGPIDS $BT"
# BEGIN runs once every probe is attached (and bpftrace's SIGINT handler set)
for _ in $(seq 1 300); do
	grep -q '^ready' "$T/bt.out" 2>/dev/null && break
	if ! kill -0 "$BT" 2>/dev/null; then
		echo "SKIP: the kernel refuses BPF here: $(grep -v RLIMIT_MEMLOCK "$T/bt.err" | head -3)" >&2
		exit 77
	fi
	sleep 0.1
done
grep -q '^ready' "$T/bt.out" || fail "bpftrace never attached: $(cat "$T/bt.err")"

mkdir -p "$T/out"
record_fg -q --off-cpu -g -e cpu-clock -o "$T/out" -- sh -c \
	"cd '$T' && ./oc_sleep 0.3 && ./oc_head -c 30000000 /dev/zero | ./oc_cat >/dev/null && ./oc_sleep 0.1" ||
	fail "record --off-cpu exited $?: $(cat "$T/record.err")"
kill -INT "$BT"
for _ in $(seq 1 100); do kill -0 "$BT" 2>/dev/null || break; sleep 0.1; done
kill -0 "$BT" 2>/dev/null && fail "bpftrace did not end on SIGINT"
wait "$BT"
set -- "$T"/out/*.frec
"$FLIGHTREC" report --off-cpu --folded -i "$1" >"$T/folded" || fail "report --off-cpu --folded exited $?"

# ours: comm;[off-cpu: ... (X)];... US, a new thread's wait to its first run
# left out (bpftrace sees no switch-out there)
awk '/^oc_(sleep|head|cat);\[off-cpu: / && !/\[new thread/ {
	split($0, f, ";"); s = f[2]; sub(/.*\(/, "", s); sub(/\).*/, "", s)
	k = (s == "S") ? 1 : (s == "D") ? 2 : 3
	t[f[1] " " k] += $NF } END { for (x in t) print x, t[x] / 1000 }' "$T/folded" | sort >"$T/ours"
# bpftrace: @off[oc_head, 1]: NS
sed -n 's/^@off\[\([a-z_]*\), \([0-9]\)\]: \([0-9]*\)$/\1 \2 \3/p' "$T/bt.out" |
	awk '{ print $1, $2, $3 / 1e6 }' | sort >"$T/theirs"
[ -s "$T/theirs" ] || fail "bpftrace summed nothing: $(cat "$T/bt.out")"
n=0
while read -r comm st ms; do
	awk -v v="$ms" 'BEGIN{exit !(v >= 20)}' || continue
	got=$(awk -v c="$comm" -v s="$st" '$1==c && $2==s {print $3}' "$T/ours")
	awk -v a="${got:-0}" -v b="$ms" 'BEGIN{d=a-b; if (d<0) d=-d; exit !(d <= b*0.05)}' ||
		fail "$comm state $st: flightrec ${got:-no} ms, bpftrace $ms ms (ours: $(tr '\n' ';' <"$T/ours"))"
	pass "$comm state $st: flightrec $got ms, bpftrace $ms ms"
	n=$((n + 1))
done <"$T/theirs"
[ "$n" -ge 2 ] || fail "fewer than two waits of 20 ms to compare: $(cat "$T/theirs")"
