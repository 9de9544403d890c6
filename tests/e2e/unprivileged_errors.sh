#!/bin/sh
# tests/e2e/unprivileged_errors.sh: what a plain user (frtest) is told when
# the machine says no: a tracepoint is a permission problem (tracefs mode or
# perf_event_paranoid), said in one line, exit 3, never "unknown event".
. "$TESTLIB"
F=$FLIGHTREC
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root to switch to frtest"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
id frtest >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin frtest 2>/dev/null ||
	{ echo "SKIP: no user frtest"; exit 77; }
chmod 755 "$T"
mkdir -p "$T/u"
chown frtest "$T/u"
as_user() {
	env -u FLIGHTREC_RUN_DIR -u XDG_RUNTIME_DIR HOME="$T/u" \
		setpriv --reuid=frtest --regid=frtest --clear-groups "$@"
}
par=$(cat /proc/sys/kernel/perf_event_paranoid)
tdir=/sys/kernel/tracing
[ -d "$tdir/events" ] || tdir=/sys/kernel/debug/tracing

# a tracepoint, unprivileged: refused by tracefs's mode (0700 root's) or by
# perf_event_paranoid; either way exit 3 and one line that says which
if as_user test -x "$tdir/events" && [ "$par" -le -1 ]; then
	echo "SKIP: tracefs is open to frtest and perf_event_paranoid is $par: nothing refuses"
	exit 77
fi
for tp in syscalls:sys_enter_read sched:sched_switch; do
	(cd "$T/u" && as_user "$F" record -e "$tp" -o "$T/u" -- true) >/dev/null 2>"$T/tp.err"; rc=$?
	[ $rc -eq 3 ] || fail "record -e $tp as frtest exited $rc (want 3): $(cat "$T/tp.err")"
	[ "$(wc -l <"$T/tp.err")" -eq 1 ] || fail "record -e $tp as frtest: not one line: $(cat "$T/tp.err")"
	grep -q 'unknown event' "$T/tp.err" && fail "record -e $tp as frtest: $(cat "$T/tp.err")"
	grep -qiE 'permission denied|not permitted' "$T/tp.err" && grep -q 'perf_event_paranoid' "$T/tp.err" ||
		fail "record -e $tp as frtest does not say permission and perf_event_paranoid: $(cat "$T/tp.err")"
	pass "record -e $tp as frtest -> 3: $(cat "$T/tp.err")"
done
# --trigger likewise
(cd "$T/u" && as_user "$F" record -e cpu-clock --trigger syscalls:sys_enter_read -o "$T/u" -- true) \
	>/dev/null 2>"$T/trig.err"; rc=$?
[ $rc -eq 3 ] || fail "record --trigger TP as frtest exited $rc (want 3): $(cat "$T/trig.err")"
grep -q 'unknown event' "$T/trig.err" && fail "record --trigger TP as frtest: $(cat "$T/trig.err")"
pass "record --trigger syscalls:sys_enter_read as frtest -> 3: $(cat "$T/trig.err")"
# a name that does not exist is still a usage error (as root, who can look)
expect_error 64 'unknown event' "$F" record -e syscalls:sys_enter_no_such_call -o "$T" -- true
exit 0
