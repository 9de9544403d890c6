#!/bin/sh
# tests/e2e/unprivileged_errors.sh: what a plain user (frtest) is told when
# the machine says no: a tracepoint is a permission problem (tracefs mode or
# perf_event_paranoid), said in one line, exit 3, never "unknown event"; and
# where the system run directory exists (/run/flightrec, root's, as the
# installed unit makes it), a user's recorder uses a run directory of that
# user ($XDG_RUNTIME_DIR/flightrec, else /tmp/flightrec-UID) and snapshot finds it.
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

# the system run directory exists: a private /run (mount namespace) holding a
# root-owned /run/flightrec, mode 0755 and 0700
if unshare -m true 2>/dev/null; then
	mkdir -p "$T/xdg" && chown frtest "$T/xdg" && chmod 700 "$T/xdg"
	for mode in 0755 0700; do
		for xdg in "" "$T/xdg"; do
			want=${xdg:+$xdg/flightrec}
			want=${want:-/tmp/flightrec-$(id -u frtest)}
			rm -f "$T"/u/*.frec
			T=$T unshare -m sh -c '
				mount -t tmpfs tmpfs /run && mkdir -m "$1" /run/flightrec || exit 99
				xdg=$2 f=$3 w=$4
				u() {
					if [ -n "$xdg" ]; then set -- env XDG_RUNTIME_DIR="$xdg" "$@"
					else set -- env -u XDG_RUNTIME_DIR "$@"; fi
					env -u FLIGHTREC_RUN_DIR HOME="$T/u" \
						setpriv --reuid=frtest --regid=frtest --clear-groups "$@"
				}
				cd "$T/u" || exit 99
				u "$f" record -q --backward -F 99 --name mine -o "$T/u" -- sleep 3 2>"$T/rd.err" &
				for i in $(seq 50); do
					[ -S "$w/mine.sock" ] && break; sleep 0.1
				done
				u "$f" snapshot --name mine >"$T/snap.out" 2>"$T/snap.err"; rc=$?
				wait
				exit $rc' sh "$mode" "$xdg" "$F" "$want"; rc=$?
			[ $rc -eq 0 ] || fail "/run/flightrec $mode, XDG_RUNTIME_DIR '${xdg}': snapshot as frtest exited $rc: $(cat "$T/rd.err" "$T/snap.err")"
			ls "$T"/u/*.frec >/dev/null 2>&1 || fail "no file written: $(cat "$T/rd.err")"
			pass "/run/flightrec root's $mode, XDG_RUNTIME_DIR '${xdg}': frtest's recorder in $want, snapshot found it"
		done
	done
else
	echo "unshare -m not possible here: the /run/flightrec case is not run"
fi
exit 0
