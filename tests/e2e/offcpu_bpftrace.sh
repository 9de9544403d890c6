#!/bin/sh
# tests/e2e/offcpu_bpftrace.sh: report --off-cpu against an offcputime
# written for bpftrace (switch-out to switch-in on sched:sched_switch, summed
# in the kernel) over the same run, twice:
# 1. a real pipeline (sleep, then a shell writing a line every 20 ms into
#    cat, then another sleeper; the binaries copied under names of their own
#    so nothing else on the host counts): off-CPU time per thread name and
#    state (S, D, R), within 5% where bpftrace saw 20 ms. Waits of
#    milliseconds: where a per-task recording ends a wait at the thread's own
#    switch-in record (the task before it not recorded), that record comes
#    ~2 us after the switch, which tens of thousands of microsecond waits (a
#    pipe between two busy programs) add up to over 5% (doc/design-notes.md,
#    "Off-CPU time");
# 2. per stack: tests/helpers/offcpu_stacks (nanosleep, a pipe read, a
#    condition variable, each in functions of its own), bpftrace keying each
#    wait by comm, ustack and kstack as it switched out; the folded lines of
#    report --off-cpu --folded --no-inline, summed over states, matched stack
#    by stack by function names (glibc's aliases made one: each symbolizer
#    picks its own of read, __libc_read, __read), every stack with 2% of
#    either side's off-CPU time within 5%. bpftrace names a user stack from
#    its process's maps when it prints, so the helper's threads stay (in hold
#    and linger, left out on both sides) until bpftrace has printed.
# The same interval: a task recorded per command is seen until
# perf_event_exit_task (its EXIT record; its events are gone after), so
# bpftrace counts no wait that begins after the task's exit began
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
cp /bin/sleep "$T/oc_sleep" && cp /bin/sleep "$T/oc_nap" && cp /bin/cat "$T/oc_cat" ||
	fail "cannot copy sleep and cat"

# the states as report --off-cpu's: 0 dead (no wait), 1 S, 2 D, 3 R (preempted)
cat >"$T/off.bt" <<'EOF'
BEGIN { printf("ready\n"); }
tracepoint:sched:sched_process_exit { @gone[tid] = 1; }
tracepoint:sched:sched_switch
{
	if ((args->prev_comm == "oc_sleep" || args->prev_comm == "oc_nap" || args->prev_comm == "oc_cat") &&
	    !@gone[args->prev_pid]) {
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
tracepoint:sched:sched_process_exec /comm == "bt_print"/
{
	print(@off); clear(@off); printf("printed\n");
}
END { clear(@start); clear(@st); clear(@gone); clear(@off); }
EOF
# bt_start SCRIPT: bpftrace SCRIPT into $T/bt.out, attached on return
bt_start() {
	bpftrace "$1" >"$T/bt.out" 2>"$T/bt.err" &
	BT=$!
	BGPIDS="$BGPIDS $BT"
	# BEGIN runs once every probe is attached
	for _ in $(seq 1 300); do
		grep -q '^ready' "$T/bt.out" 2>/dev/null && break
		if ! kill -0 "$BT" 2>/dev/null; then
			echo "SKIP: the kernel refuses BPF here: $(grep -v RLIMIT_MEMLOCK "$T/bt.err" | head -3)" >&2
			exit 77
		fi
		sleep 0.1
	done
	grep -q '^ready' "$T/bt.out" || fail "bpftrace never attached: $(cat "$T/bt.err")"
}
# bt_stop: bpftrace prints @off (naming the stacks) when bt_print runs, while
# its probes are still attached and the threads it names still there; then
# it is killed, so that nothing depends on how long its exit takes (END, the
# probes' detach). If it has not printed in 120 s, what it is waiting on.
bt_stop() {
	"$T/bt_print" || fail "cannot run $T/bt_print"
	for _ in $(seq 1 1200); do
		grep -q '^printed' "$T/bt.out" 2>/dev/null && break
		kill -0 "$BT" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q '^printed' "$T/bt.out" 2>/dev/null; then
		diag="bt.err: $(tr '\n' ' ' <"$T/bt.err"); bt.out: $(wc -l <"$T/bt.out") lines"
		for t in /proc/"$BT"/task/*; do
			diag="$diag; ${t##*/} $(awk '{print $3}' "$t/stat" 2>/dev/null) $(cat "$t/wchan" 2>/dev/null) $(tr '\n' ' ' <"$t/stack" 2>/dev/null)"
		done
		fail "bpftrace did not print in 120 s after bt_print ran: $diag"
	fi
	kill -KILL "$BT"
	wait "$BT" 2>/dev/null
}
cp /bin/true "$T/bt_print" || fail "cannot copy true"
bt_start "$T/off.bt"

mkdir -p "$T/out"
record_fg -q --off-cpu -g -e cpu-clock -o "$T/out" -- sh -c \
	"cd '$T' && ./oc_sleep 0.3 && for i in 1 2 3 4 5 6 7 8 9 10; do echo \$i; sleep 0.02; done | ./oc_cat >/dev/null && ./oc_nap 0.1" ||
	fail "record --off-cpu exited $?: $(cat "$T/record.err")"
bt_stop
set -- "$T"/out/*.frec
"$FLIGHTREC" report --off-cpu --folded -i "$1" >"$T/folded" || fail "report --off-cpu --folded exited $?"

# ours: comm;[off-cpu: ... (X)];... US, a new thread's wait to its first run
# left out (bpftrace sees no switch-out there)
awk '/^oc_(sleep|nap|cat);\[off-cpu: / && !/\[new thread/ {
	split($0, f, ";"); s = f[2]; sub(/.*\(/, "", s); sub(/\).*/, "", s)
	k = (s == "S") ? 1 : (s == "D") ? 2 : 3
	t[f[1] " " k] += $NF } END { for (x in t) print x, t[x] / 1000 }' "$T/folded" | sort >"$T/ours"
# bpftrace: @off[oc_cat, 1]: NS
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
# two sleepers (300 and 100 ms) and cat's ten waits for a line (~200 ms)
[ "$n" -ge 3 ] || fail "fewer than three waits of 20 ms to compare: $(cat "$T/theirs")"
grep -q '^oc_cat 1 ' "$T/theirs" || fail "bpftrace saw no sleep of cat's: $(cat "$T/theirs")"

# 2. per stack. bpftrace keeps each thread's stacks as it switches out and
# sums the wait under them as it switches in (a stack id and a pid: names
# come when it prints)
cat >"$T/stk.bt" <<'BT'
BEGIN { printf("ready\n"); }
tracepoint:sched:sched_process_exit { @gone[tid] = 1; }
tracepoint:sched:sched_switch
{
	if ((strncmp(args->prev_comm, "ocs-", 4) == 0 || args->prev_comm == "offcpu_stacks") &&
	    !@gone[args->prev_pid]) {
		@start[args->prev_pid] = nsecs;
		@us[args->prev_pid] = ustack;
		@ks[args->prev_pid] = kstack;
		@cm[args->prev_pid] = args->prev_comm;
	}
	$t = @start[args->next_pid];
	if ($t) {
		@off[@cm[args->next_pid], @us[args->next_pid], @ks[args->next_pid]] = sum(nsecs - $t);
		delete(@start[args->next_pid]);
		delete(@us[args->next_pid]);
		delete(@ks[args->next_pid]);
		delete(@cm[args->next_pid]);
	}
}
tracepoint:sched:sched_process_exec /comm == "bt_print"/
{
	print(@off); clear(@off); printf("printed\n");
}
END { clear(@start); clear(@us); clear(@ks); clear(@cm); clear(@gone); clear(@off); }
BT
bt_start "$T/stk.bt"
mkdir -p "$T/stk"
mkfifo "$T/in" || fail "mkfifo"
"$FLIGHTREC" record -q --off-cpu -g -e cpu-clock -o "$T/stk" -- "$HELPERS/offcpu_stacks" \
	<"$T/in" >"$T/stk.work" 2>"$T/stk.err" &
RP=$!
BGPIDS="$BGPIDS $RP"
exec 3>"$T/in"   # the helper's stdin, open until bpftrace has printed
for _ in $(seq 1 300); do
	grep -q '^done' "$T/stk.work" 2>/dev/null && break
	kill -0 "$RP" 2>/dev/null || break
	sleep 0.1
done
grep -q '^done' "$T/stk.work" 2>/dev/null || {
	exec 3>&-
	wait "$RP"; rc=$?
	if [ "$rc" -eq 3 ] && grep -qE 'Permission denied|Operation not permitted' "$T/stk.err"; then
		echo "SKIP: the kernel refuses perf_event_open here: $(cat "$T/stk.err")" >&2
		exit 77
	fi
	fail "offcpu_stacks never said done (record exited $rc): $(cat "$T/stk.err")"
}
bt_stop
exec 3>&-
wait "$RP" || fail "record --off-cpu of offcpu_stacks exited $?: $(cat "$T/stk.err")"
set -- "$T"/stk/*.frec
"$FLIGHTREC" report --off-cpu --folded --no-inline -i "$1" >"$T/stk.folded" ||
	fail "report --off-cpu --folded --no-inline exited $?"

# Both sides to "ms comm;outermost;...;leaf" (user frames, then kernel
# frames), names without offsets, glibc's alias prefixes (__GI_, __libc_, _)
# dropped, an unnamed address [unknown]; the waits of hold and linger (not
# ended when bpftrace printed) and flightrec's placeholder stacks left out.
NORM='function norm(s) {
	sub(/\+[0-9]+$/, "", s); sub(/@.*/, "", s)
	if (s ~ /^0x[0-9a-f]+$/) return "[unknown]"
	sub(/^__GI_/, "", s); sub(/^__libc_/, "", s); sub(/^_+/, "", s)
	return s
}
function keep(k) { return k !~ /;(hold|linger)(;|$)/ }'
awk "$NORM"'
/^(ocs-|offcpu_stacks).*;\[off-cpu: / && !/\[(new thread|began before|stack not recorded)/ {
	w = $NF; line = $0; sub(/ [0-9]+$/, "", line)
	n = split(line, f, ";"); k = f[1]
	for (i = 3; i <= n; i++) k = k ";" norm(f[i])
	if (keep(k)) t[k] += w / 1000
} END { for (k in t) printf "%.3f %s\n", t[k], k }' "$T/stk.folded" | sort -k2 >"$T/stk.ours"
# bpftrace: "@off[COMM, " user frames (leaf first) ", " kernel frames "]: NS"
awk "$NORM"'
/^@off\[/ { c = substr($0, 6); sub(/, *$/, "", c); nu = nk = 0; part = 1; next }
/^, *$/ { part = 2; next }
/^\]: [0-9]+$/ {
	k = c
	for (i = nu; i >= 1; i--) k = k ";" u[i]
	for (i = nk; i >= 1; i--) k = k ";" kk[i]
	if (keep(k)) t[k] += $2 / 1e6
	next
}
NF == 1 { if (part == 1) u[++nu] = norm($1); else kk[++nk] = norm($1) }
END { for (k in t) printf "%.3f %s\n", t[k], k }' "$T/bt.out" | sort -k2 >"$T/stk.theirs"
[ -s "$T/stk.theirs" ] || fail "bpftrace summed no stack: $(head -20 "$T/bt.out")"
[ -s "$T/stk.ours" ] || fail "report --off-cpu --folded has no stack of offcpu_stacks: $(head -20 "$T/stk.folded")"
# every stack with 2% of either side's total: on both, within 5%
awk '
NR == FNR { ours[$2] = $1; to += $1; next }
{ theirs[$2] = $1; tt += $1 }
END {
	for (k in ours) if (ours[k] >= to * 0.02) cmp[k] = 1
	for (k in theirs) if (theirs[k] >= tt * 0.02) cmp[k] = 1
	for (k in cmp) {
		a = ours[k] + 0; b = theirs[k] + 0; d = a - b; if (d < 0) d = -d
		printf "%s %.3f %.3f %s\n", (b > 0 && d <= b * 0.05) ? "ok" : "BAD", a, b, k
	}
}' "$T/stk.ours" "$T/stk.theirs" | sort -k4 >"$T/stk.cmp"
grep '^BAD' "$T/stk.cmp" && fail "stacks differ (flightrec ms, bpftrace ms, stack): $(cat "$T/stk.cmp")
ours: $(cat "$T/stk.ours")
bpftrace: $(cat "$T/stk.theirs")"
while read -r _ a b k; do pass "flightrec $a ms, bpftrace $b ms: $k"; done <"$T/stk.cmp"
# the functions the helper blocks in, each on a stack compared
for fn in short_nap long_nap wait_pipe feed_pipe futex_abstimed_wait_common; do
	grep -q ";$fn;" "$T/stk.cmp" || fail "no stack of 2% through $fn: $(cat "$T/stk.cmp")"
done
pass "$(wc -l <"$T/stk.cmp") stacks of offcpu_stacks agree within 5%"
