#!/bin/sh
# tests/e2e/control.sh: the control socket under attack and fault: malformed
# requests leave the recorder alive, silent clients do not delay a snapshot,
# another user can neither trigger nor spoof, a foreign or open run dir is
# refused, and one name runs once (planted symlinks: tests/e2e/faults.sh).
. "$TESTLIB"
F=$FLIGHTREC
mkdir -p "$T/o"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (a second user, chown)" >&2; exit 77; }
id frtest >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin frtest ||
	{ echo "SKIP: cannot create the user frtest" >&2; exit 77; }
FRUID=$(id -u frtest)
chmod 0711 "$T"     # frtest may pass through, not list
as_frtest() { setpriv --reuid=frtest --regid=frtest --clear-groups "$@"; }
# a python3 that frtest may run too (not one under root's home)
PY3=
for p in /usr/bin/python3 /usr/local/bin/python3 "$(command -v python3)"; do
	[ -x "$p" ] && as_frtest "$p" -c '' 2>/dev/null && { PY3=$p; break; }
done
[ -n "$PY3" ] || { echo "SKIP: needs a python3 that another user can run" >&2; exit 77; }
REC="-e syscalls:sys_enter_prctl -m 4 --no-final-snapshot -q -o $T/o"
nfiles() { find "$T/o" -name '*.frec' | wc -l; }

cat >"$T/ctl.py" <<'EOF'
import os, socket, sys, time

def talk(path, data, shut=False, wait=5.0):
    """Send data, read the answer until EOF: 'REPLY <repr>' or what went wrong."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError as e:
        return "CONNECT %s" % e.strerror
    s.settimeout(wait)
    try:
        if data:
            s.sendall(data)
        if shut:
            s.shutdown(socket.SHUT_WR)
    except OSError:
        pass                       # the recorder may close a long line early
    got = b""
    try:
        while True:
            b = s.recv(4096)
            if not b:
                break
            got += b
    except socket.timeout:
        return "TIMEOUT " + repr(got)
    except OSError:
        return "RESET " + repr(got)
    finally:
        s.close()
    return "REPLY " + repr(got)

mode, path = sys.argv[1], sys.argv[2]
if mode == "malformed":
    bad = [b"\0\n", b"snap\0shot\n", b"snapshot\0\n", b"snapshot after=\0\n",
           b"snapshot after=5\0\n", b"\n", b"snapshot after=\n", b"snapshot after=-1\n",
           b"snapshot after=+1\n", b"snapshot after=1e19\n",
           b"snapshot after=99999999999999999999\n", b"snapshot after=18446744073709551616\n",
           b"snapshot after=3600000000001\n", b"snapshot after= 5\n", b"snapshot after=5 \n",
           b"snapshot after=5x\n", b"snapshot after=0x10\n", b"snapshot  after=5\n",
           b"snapshot after=5\r\n", b"snapshots\n", b"SNAPSHOT\n", b"stop\n",
           b"snapshot before=5\n", b"\xff\xfe\x80\n", b"snapshot after=5 after=6\n",
           b"A" * 65536 + b"\n", b"snapshot after=" + b"9" * 65536 + b"\n"]
    fails = 0
    for d in bad:
        r = talk(path, d)
        ok = r.startswith("REPLY b'error ") or (len(d) > 1000 and r.startswith("RESET"))
        print("%s: %r -> %s" % ("ok" if ok else "FAIL", d[:40], r[:90]))
        fails += not ok
    # no newline, then half-closed; half-closed mid-number; nothing at all
    for d in [b"snapshot", b"snapshot after=5", b""]:
        r = talk(path, d, shut=True)
        ok = r.startswith("REPLY b'error ")
        print("%s: %r, half-closed -> %s" % ("ok" if ok else "FAIL", d, r[:90]))
        fails += not ok
    sys.exit(1 if fails else 0)
elif mode == "send":               # send ARG (escapes allowed), print the answer
    print(talk(path, sys.argv[3].encode().decode("unicode_escape").encode("latin-1")))
elif mode == "hold":               # N silent clients; READYFILE when all connected
    import select
    n, ready = int(sys.argv[3]), sys.argv[4]
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        socks.append(s)
    t0 = time.monotonic()
    open(ready, "w").close()
    left = list(socks)
    while left and time.monotonic() - t0 < 10:
        r, _, _ = select.select(left, [], [], 1)
        for s in r:            # when each one was answered or closed
            try:
                b = s.recv(4096)
            except OSError as e:
                b = ("<%s>" % e).encode()
            print("%.2f %r" % (time.monotonic() - t0, b))
            left.remove(s)
    for s in left:
        print("99 still-open")
elif mode == "fake":               # a fake recorder: REPLY to every client
    reply = sys.argv[3].encode().decode("unicode_escape").encode("latin-1")
    uid, ready = int(sys.argv[4]), sys.argv[5]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    if uid >= 0:                   # bound as root, listening as uid
        os.setgid(uid); os.setuid(uid)
    s.listen(8)
    open(ready, "w").close()
    while True:
        c, _ = s.accept()
        c.settimeout(2)
        try:
            c.recv(4096)
            c.sendall(reply)
        except OSError:
            pass
        c.close()
EOF
PY="$PY3 $T/ctl.py"
RUN=$FLIGHTREC_RUN_DIR

# 1. malformed requests: each answered with an error, the recorder lives on
record_bg c1 -a $REC
$PY malformed "$RUN/c1.sock" >"$T/malformed.txt" 2>&1 ||
	fail "malformed requests: $(grep -v '^ok' "$T/malformed.txt" | head -5)"
kill -0 "$RECPID" 2>/dev/null || fail "the recorder died of malformed requests: $(cat "$T/record-c1.err")"
f=$($F snapshot --name c1) && [ -s "$f" ] || fail "no snapshot after the malformed requests"
$F dump "$f" >/dev/null || fail "the snapshot after malformed requests does not dump"
pass "$(grep -c '^ok' "$T/malformed.txt") malformed requests refused, recorder alive, snapshot ok"
expect_error 64 "at most 1h" $F snapshot --name c1 --after 2h

# 2. silent clients do not delay a snapshot; they are closed after ~2 s
ms() { $PY3 -c 'import time; print(int(time.monotonic()*1000))'; }
t=$(ms); $F snapshot --name c1 >/dev/null || fail "snapshot failed"; quiet=$(( $(ms) - t ))
$PY hold "$RUN/c1.sock" 10 "$T/held" >"$T/held.txt" 2>&1 & hp=$!
for _ in $(seq 1 50); do [ -e "$T/held" ] && break; sleep 0.1; done
[ -e "$T/held" ] || fail "10 silent clients could not connect"
t=$(ms); $F snapshot --name c1 --timeout 10 >/dev/null || fail "snapshot with 10 silent clients failed"
busy=$(( $(ms) - t ))
wait $hp
[ "$busy" -lt $((quiet + 1000)) ] || fail "snapshot took $busy ms with 10 silent clients connected ($quiet ms without)"
awk '$1 < 1.5 || $1 > 5 || $2 !~ /error/ {bad++} END {exit bad>0}' "$T/held.txt" ||
	fail "silent clients were not closed at their ~2 s deadline: $(head -3 "$T/held.txt")"
pass "snapshot: $quiet ms alone, $busy ms with 10 silent clients; they were closed after ~2 s"
# more than 64 at once: the rest are told so at once
rm -f "$T/held"
$PY hold "$RUN/c1.sock" 70 "$T/held" >"$T/held70.txt" 2>&1 & hp=$!
for _ in $(seq 1 50); do [ -e "$T/held" ] && break; sleep 0.1; done
wait $hp
n=$(awk '$1 < 1 && /too many clients/' "$T/held70.txt" | wc -l)
[ "$n" -ge 6 ] || fail "70 silent clients: $n told 'too many clients' at once: $(sort -n "$T/held70.txt" | head -3)"
$F snapshot --name c1 >/dev/null || fail "no snapshot after 70 silent clients"
pass "70 silent clients: $n refused at once (64 at most), snapshot ok afterwards"

# 3. another user can neither trigger ...
before=$(nfiles)
as_frtest "$F" snapshot --name c1 --run-dir "$RUN" >"$T/u.out" 2>"$T/u.err" &&
	fail "frtest triggered a snapshot of root's recorder: $(cat "$T/u.out")"
r=$(as_frtest $PY send "$RUN/c1.sock" 'snapshot\n')
case $r in CONNECT*) ;; *) fail "frtest could talk to the socket: $r" ;; esac
# ... not even past the file modes (CAP_DAC_OVERRIDE): the peer's uid is checked
r=$(as_frtest --inh-caps=+dac_override --ambient-caps=+dac_override $PY send "$RUN/c1.sock" 'snapshot\n')
case $r in "REPLY b''"|"RESET b''") ;; *) fail "frtest with CAP_DAC_OVERRIDE got: $r" ;; esac
sleep 0.3
[ "$(nfiles)" -eq "$before" ] || fail "frtest's requests wrote a snapshot"
kill -0 "$RECPID" 2>/dev/null || fail "the recorder died"
pass "frtest cannot trigger: $(cat "$T/u.err"); with CAP_DAC_OVERRIDE: closed unanswered"
kill -TERM "$RECPID"; wait "$RECPID"; BGPIDS=""
for x in sock pid lock; do [ -e "$RUN/c1.$x" ] && fail "c1.$x outlived the recorder"; done

# ... nor spoof: root's client refuses a socket in frtest's dir, a socket of
# frtest's, a process of frtest's behind a root-owned socket, and a NUL reply
fake() {  # DIR UID REPLY [as frtest]
	rm -f "$T/rdy/fake.ready"
	if [ "$2" = frtest ]; then	# not through a function: $! must be python's pid
		setpriv --reuid=frtest --regid=frtest --clear-groups $PY fake "$1/c1.sock" "$3" -1 "$T/rdy/fake.ready" &
	else $PY fake "$1/c1.sock" "$3" "$2" "$T/rdy/fake.ready" & fi
	FAKEPID=$!; BGPIDS="$BGPIDS $FAKEPID"
	for _ in $(seq 1 50); do [ -e "$T/rdy/fake.ready" ] && return; sleep 0.1; done
	fail "the fake recorder did not start"
}
mkdir -m 1777 "$T/rdy"
unfake() { kill "$FAKEPID"; wait "$FAKEPID" 2>/dev/null; rm -f "$T/evil/c1.sock" "$T/mixed/c1.sock"; }
mkdir -m 700 "$T/evil" && chown frtest: "$T/evil"
fake "$T/evil" frtest 'ok /etc/shadow\n'
expect_error 2 "not trusted: the run directory belongs to neither root nor you" \
	$F snapshot --run-dir "$T/evil" --name c1
unfake
mkdir -m 700 "$T/mixed"
fake "$T/evil" frtest 'ok /etc/shadow\n'
mv "$T/evil/c1.sock" "$T/mixed/c1.sock"
expect_error 2 "not trusted: the control socket belongs to neither" $F snapshot --run-dir "$T/mixed" --name c1
unfake
fake "$T/mixed" "$FRUID" 'ok /etc/shadow\n'
expect_error 2 "not trusted: the process behind" $F snapshot --run-dir "$T/mixed" --name c1
unfake
fake "$T/mixed" -1 'ok /x\0y\n'
expect_error 2 "malformed reply" $F snapshot --run-dir "$T/mixed" --name c1
unfake
fake "$T/mixed" -1 'ok \033]0;pwned\007\n'
expect_error 2 "malformed reply" $F snapshot --run-dir "$T/mixed" --name c1
unfake
pass "root's client refuses every spoofed recorder"

# 4. planted symlinks at NAME.pid, NAME.lock, NAME.sock and the run dir:
# tests/e2e/faults.sh (each refused, the file named, nothing followed)
start_fails() {  # DIR NAME WHY: the recorder refuses to start (2, one line)
	expect_error 2 "$1: $3" $F record --name "$2" --run-dir "$1" $REC -- sleep 5
}

# 5. a run dir of another user, or open to others, is refused
mkdir -m 755 "$T/r6"
start_fails "$T/r6" s6 "the run directory's mode is not 0700"
mkdir -m 700 "$T/r7"; chown frtest: "$T/r7"
start_fails "$T/r7" s7 "the run directory belongs to another user"
# the non-root default /tmp/flightrec-UID, planted by someone else
plant=/tmp/flightrec-$FRUID
if [ ! -e "$plant" ]; then
	mkdir -m 777 "$plant"
	mkdir "$T/u" && chown frtest: "$T/u"
	as_frtest env -u XDG_RUNTIME_DIR -u FLIGHTREC_RUN_DIR "$F" record --name p1 \
		-e cpu-clock -m 4 -q -o "$T/u" -- true >"$T/p1.out" 2>"$T/p1.err"
	rc=$?
	as_frtest env -u XDG_RUNTIME_DIR -u FLIGHTREC_RUN_DIR "$F" snapshot --name p1 \
		>"$T/p1s.out" 2>"$T/p1s.err"
	rcs=$?
	rm -rf "$plant"
	[ $rcs -eq 2 ] && grep -q "writable by others" "$T/p1s.err" ||
		fail "frtest's client used a planted $plant: $rcs $(cat "$T/p1s.err")"
	if [ $rc -eq 3 ]; then
		pass "planted $plant: the client refuses it (the kernel refuses frtest's recorder)"
	else
		[ $rc -eq 2 ] && grep -q "$plant: the run directory" "$T/p1.err" ||
			fail "frtest's recorder accepted a planted $plant: $rc $(cat "$T/p1.err")"
		pass "planted $plant: recorder and client refuse it"
	fi
fi

# 6. one name runs once: two recorders started at the same instant
for i in 1 2 3; do
	d="$T/race$i"
	$F record --name race --run-dir "$d" $REC -- sleep 1 2>"$d.a.err" & a=$!
	$F record --name race --run-dir "$d" $REC -- sleep 1 2>"$d.b.err" & b=$!
	wait $a; ra=$?
	wait $b; rb=$?
	if [ $ra -eq 3 ] || [ $rb -eq 3 ]; then echo "SKIP: $(cat "$d.a.err" "$d.b.err")" >&2; exit 77; fi
	case "$ra$rb" in
	02|20) ;;
	*) fail "round $i: two recorders under one name exited $ra and $rb: $(cat "$d.a.err" "$d.b.err")" ;;
	esac
	grep -q "already running" "$d.a.err" "$d.b.err" || fail "round $i: the loser did not say why"
done
pass "two recorders started together under one name: exactly one ran, 3 times"

# the name is held by a lock, not by the socket's presence: with the socket
# of a running recorder gone, a second one under its name is still refused
record_bg held -a $REC
held=$RECPID
rm -f "$RUN/held.sock"
expect_error 2 "already running \(pid $held\)" $F record --name held $REC -- sleep 2
kill -0 "$held" 2>/dev/null || fail "the first recorder died"
kill -TERM "$held"; wait "$held"; BGPIDS=""

# a recorder killed -9 leaves stale files; the next one under its name starts
record_bg k9 -a $REC
kill -9 "$RECPID"; wait "$RECPID" 2>/dev/null; BGPIDS=""
record_bg k9 -a $REC
for _ in $(seq 1 100); do [ "$(cat "$RUN/k9.pid" 2>/dev/null)" = "$RECPID" ] && break; sleep 0.1; done
$F snapshot --name k9 >/dev/null || fail "no snapshot from the recorder after a kill -9"
[ "$(cat "$RUN/k9.pid")" = "$RECPID" ] || fail "the stale pid file was not replaced"
pass "stale socket, pid and lock files after kill -9 are replaced"
kill -TERM "$RECPID"; wait "$RECPID"; BGPIDS=""
exit 0
