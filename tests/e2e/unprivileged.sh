#!/bin/sh
# tests/e2e/unprivileged.sh: as a plain user (frtest) with perf_event_paranoid
# 2, recording one's own command works user space only, as with perf: a file
# in a directory the user owns, the helper's functions in the report, a run
# dir of the user's own; -a is refused with one line naming the sysctl.
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

(cd "$T/u" && as_user "$F" record -F 999 -o "$T/u" -- "$HELPERS/cpuburn_fp" 50) >/dev/null 2>"$T/rec.err" ||
	fail "record as frtest exited $?: $(cat "$T/rec.err")"
if [ "$par" -ge 2 ]; then
	grep -q "^flightrec: kernel samples not allowed (perf_event_paranoid=$par): recording user space only$" "$T/rec.err" ||
		fail "no line saying user space only: $(cat "$T/rec.err")"
fi
f=$(ls "$T"/u/*.frec) || fail "no file in frtest's directory"
[ "$(stat -c %U "$f")" = frtest ] || fail "the file belongs to $(stat -c %U "$f")"
(cd "$T/u" && as_user "$F" report "$f") >"$T/rep.txt" 2>"$T/rep.err" || fail "report as frtest exited $?: $(cat "$T/rep.err")"
grep -q 'hot_a' "$T/rep.txt" && grep -q 'hot_b' "$T/rep.txt" || fail "report lacks the helper's functions: $(cat "$T/rep.txt")"
pass "frtest: record -F 999 -- cpuburn_fp 50 (perf_event_paranoid=$par): $(grep -c . "$T/rep.txt") report lines, hot_a and hot_b"

# --backward as frtest: the name tracepoints cannot be opened (tracefs is
# root's), so the COMMs stay on the sideband ring, and the file names and
# symbolizes the command as before
mkdir -p "$T/ub"
chown frtest "$T/ub"
(cd "$T/ub" && as_user "$F" record --backward -F 999 -o "$T/ub" -- "$HELPERS/cpuburn_fp" 30) >/dev/null 2>"$T/recb.err" ||
	fail "record --backward as frtest exited $?: $(cat "$T/recb.err")"
f=$(ls "$T"/ub/*.frec) || fail "no --backward file in frtest's directory"
"$F" dump "$f" >"$T/ub.txt" || fail "dump of the --backward file exited $?"
grep -q '^# comms: sideband ring$' "$T/ub.txt" || fail "--backward as frtest: $(grep '^# comms' "$T/ub.txt")"
grep -q ' COMM .*comm=cpuburn_fp exec=1' "$T/ub.txt" || fail "--backward as frtest: no exec COMM of the command"
(cd "$T/ub" && as_user "$F" report "$f") >"$T/repb.txt" 2>&1 || fail "report of the --backward file exited $?"
grep -q 'hot_a' "$T/repb.txt" || fail "--backward as frtest: report lacks hot_a: $(cat "$T/repb.txt")"
pass "frtest: record --backward: the COMMs on the sideband ring (no name tracepoints for a user), hot_a named"

# the run dir fell back to one of frtest's own (no XDG_RUNTIME_DIR)
rd=/tmp/flightrec-$(id -u frtest)
[ -d "$rd" ] && [ "$(stat -c %U:%a "$rd")" = frtest:700 ] || fail "run dir $rd: $(ls -ld "$rd" 2>&1)"
pass "run dir without XDG_RUNTIME_DIR: $rd, frtest's, 0700"

if [ "$par" -ge 1 ]; then
	(cd "$T/u" && as_user "$F" record -a -o "$T/u") >/dev/null 2>"$T/a.err"; rc=$?
	[ $rc -eq 3 ] || fail "record -a as frtest exited $rc: $(cat "$T/a.err")"
	grep -v '^flightrec: no -e given' "$T/a.err" >"$T/a1.err"
	[ "$(wc -l <"$T/a1.err")" -eq 1 ] && grep -q 'perf_event_paranoid' "$T/a1.err" ||
		fail "record -a as frtest: $(cat "$T/a.err")"
	pass "record -a as frtest -> 3: $(cat "$T/a1.err")"
fi
exit 0
