#!/bin/sh
# tests/e2e/push.sh: OTLP/HTTP delivery against a loopback receiver of our
# own (tests/helpers/otlp_sink.py): `push` retries a 503 after its
# Retry-After and delivers the file (headers, gzip, a request protoc
# decodes); a refusal and a world-readable headers file are one line and
# exit 2; `record --push` delivers every snapshot of a running recorder, those
# written while the receiver was down once it is up (oldest first, the outage
# said once), the final one after the recorder ends; and a receiver that
# answers in 5 s does not hold snapshots up.
. "$TESTLIB"

command -v protoc >/dev/null || { echo "SKIP: no protoc (apt-get install protobuf-compiler)"; exit 77; }
TOPSRC=$(cd "$FIXTURES/../.." && pwd)
REQ=opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest
# sink DIR ARGS...: start a receiver, its port in $PORT
sink() {
	d=$1; shift
	mkdir -p "$d"
	python3 "$TOPSRC/tests/helpers/otlp_sink.py" "$d" "$@" &
	BGPIDS="$BGPIDS $!"
	SINKPID=$!
	for _ in $(seq 1 200); do [ -f "$d/port" ] && break; sleep 0.05; done
	[ -f "$d/port" ] || fail "the receiver did not start"
	PORT=$(cat "$d/port")
}
decode() {   # FILE.pb -> JSON on stdout
	python3 "$TOPSRC/tests/helpers/pbtext.py" "$TOPSRC/tests/otlp" \
		opentelemetry/proto/collector/profiles/v1development/profiles_service.proto "$REQ" <"$1"
}
ms() { echo $(($(date +%s%N) / 1000000)); }
# wait_for N DIR: until DIR/log has N answers of 200 (at most 30 s)
wait_for() {
	for _ in $(seq 1 300); do
		[ "$(awk '$2 == 200' "$2/log" 2>/dev/null | wc -l)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

mkdir -p "$T/one"
record_fg -q -F 999 -g -o "$T/one" -- "$HELPERS/cpuburn_fp" 1 >/dev/null || fail "record exited $?"
set -- "$T"/one/*.frec
F=$1

# push: 503 + Retry-After: 1, then accepted
sink "$T/s1" --refuse 1
URL=http://127.0.0.1:$PORT/v1development/profiles
"$FLIGHTREC" push -H 'X-Scope-OrgID: t1' --gzip "$URL" "$F" 2>"$T/push.err" || fail "push exited $?: $(cat "$T/push.err")"
awk 'NR == 1 && $2 == 503 {t = $3} NR == 2 && $2 == 200 {ok = ($3 - t >= 0.9)} END {exit !ok}' "$T/s1/log" ||
	fail "expected a 503, then a 200 a Retry-After (1 s) later: $(cat "$T/s1/log")"
grep -qi '^X-Scope-OrgID: t1' "$T/s1/req-2.hdr" || fail "the header did not arrive: $(cat "$T/s1/req-2.hdr")"
grep -qi '^Content-Encoding: gzip' "$T/s1/req-2.hdr" || fail "not gzipped: $(cat "$T/s1/req-2.hdr")"
grep -qi '^Content-Type: application/x-protobuf' "$T/s1/req-2.hdr" || fail "content type: $(cat "$T/s1/req-2.hdr")"
gzip -dc "$T/s1/req-2.pb" >"$T/req.pb" || fail "the body does not gunzip"
"$FLIGHTREC" report --format=otlp -o "$T/direct.pb" "$F" || fail "report --format=otlp exited $?"
decode "$T/req.pb" >"$T/req.json" && decode "$T/direct.pb" >"$T/direct.json" || fail "protoc could not decode"
python3 - "$T/req.json" "$T/direct.json" <<'PY' || fail "the pushed request is not the file's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
n = lambda d: sum(len(s['values']) for p in d['resource_profiles'][0]['scope_profiles'][0]['profiles'] for s in p['samples'])
assert n(a) == n(b) > 0, (n(a), n(b))
assert a['dictionary'] == b['dictionary']
print('ok: the pushed request holds the file\'s %d samples' % n(a))
PY
grep -q 'retrying in' "$T/push.err" || fail "the retry was not said: $(cat "$T/push.err")"
pass "push: 503 retried after Retry-After, then delivered (headers, gzip, the file's request)"

# a refusal for good (404), a headers file others can read: one line, exit 2
expect_error 2 "refused: HTTP 404" "$FLIGHTREC" push "http://127.0.0.1:$PORT/nowhere" "$F"
printf 'Authorization: Bearer s3cret\n' >"$T/hdrs"
chmod 644 "$T/hdrs"
expect_error 2 "readable by its owner only" "$FLIGHTREC" push --header-file "$T/hdrs" "$URL" "$F"
expect_error 64 "Name: value" "$FLIGHTREC" push -H "$(printf 'X: a\r\nY: b')" "$URL" "$F"
expect_error 64 "not an http" "$FLIGHTREC" push "file:///etc/passwd" "$F"
chmod 600 "$T/hdrs"
pass "push: refusal, a readable headers file, header injection and a non-HTTP URL refused"

# record --push with the receiver down for the first two snapshots
sink "$T/probe"   # a free port, then nobody on it
P2=$PORT
kill "$SINKPID"; wait "$SINKPID" 2>/dev/null
mkdir -p "$T/out2"
record_bg pu -e syscalls:sys_enter_read -m 256 -o "$T/out2" \
	--push "http://127.0.0.1:$P2/v1development/profiles" --push-header-file "$T/hdrs"
"$HELPERS/read_loop" 100
s1=$("$FLIGHTREC" snapshot --name pu) || fail "snapshot 1 exited $?"
s2=$("$FLIGHTREC" snapshot --name pu) || fail "snapshot 2 exited $?"
for _ in $(seq 1 100); do grep -q 'stay marked' "$T/record-pu.err" && break; sleep 0.05; done
[ -f "$s1.push" ] && [ -f "$s2.push" ] || fail "snapshots not marked while the receiver is down: $(ls "$T/out2")"
sink "$T/s2" --port "$P2"
s3=$("$FLIGHTREC" snapshot --name pu) || fail "snapshot 3 exited $?"
wait_for 3 "$T/s2" || fail "3 snapshots not delivered once the receiver was up: $(cat "$T/s2/log" 2>&1)"
kill -TERM "$RECPID"; wait "$RECPID"; rc=$?
[ "$rc" -eq 0 ] || fail "recorder exited $rc: $(cat "$T/record-pu.err")"
nf=$(ls "$T/out2"/*.frec | wc -l)
wait_for "$nf" "$T/s2" || fail "$nf snapshots, $(awk '$2 == 200' "$T/s2/log" | wc -l) delivered after the end"
for _ in $(seq 1 50); do ls "$T/out2"/*.push >/dev/null 2>&1 || break; sleep 0.1; done
! ls "$T/out2"/*.push >/dev/null 2>&1 || fail "marks left: $(ls "$T/out2")"
[ "$(grep -c 'stay marked' "$T/record-pu.err")" -eq 1 ] ||
	fail "the outage said other than once: $(cat "$T/record-pu.err")"
grep -qi '^Authorization: Bearer s3cret' "$T/s2/req-1.hdr" || fail "the headers file's header did not arrive"
for f in "$T"/s2/req-*.pb; do decode "$f"; echo; done >"$T/all.json" || fail "a pushed request does not decode"
python3 - "$T/all.json" "$nf" <<'PY' || fail "the delivered snapshots"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
nf = int(sys.argv[2])
def snap(r):
    D = r['dictionary'][0]; S = D['string_table']; A = D['attribute_table']
    p = r['resource_profiles'][0]['scope_profiles'][0]['profiles'][0]
    for i in p.get('attribute_indices', []):
        if S[A[i]['key_strindex'][0]] == 'flightrec.trigger.snapshot_time_unix_nano':
            return A[i]['value'][0]['int_value'][0]
times = [snap(r) for r in reqs]
assert len(set(times)) == nf == len(times), ('distinct snapshots', times, nf)
print('ok: %d distinct snapshots delivered' % nf)
PY
awk '$2 == 200 {print $1}' "$T/s2/log" >"$T/order"
pass "record --push: $nf snapshots delivered, 2 of them written while the receiver was down"

# a receiver that answers in 5 s does not hold snapshots up
sink "$T/s3" --delay 5
mkdir -p "$T/out3" "$T/out4"
record_bg sl -e syscalls:sys_enter_read -m 256 -o "$T/out3" --push "http://127.0.0.1:$PORT/v1development/profiles"
SLPID=$RECPID
record_bg np -e syscalls:sys_enter_read -m 256 -o "$T/out4"
worst=0 base=0
for i in 1 2 3; do
	"$HELPERS/read_loop" 100
	t=$(ms); "$FLIGHTREC" snapshot --name sl >/dev/null || fail "snapshot $i exited $?"; t=$(($(ms) - t))
	b=$(ms); "$FLIGHTREC" snapshot --name np >/dev/null || fail "snapshot $i (no push) exited $?"; b=$(($(ms) - b))
	[ "$t" -gt "$worst" ] && worst=$t
	[ "$b" -gt "$base" ] && base=$b
done
[ "$worst" -lt $((base + 2000)) ] ||
	fail "snapshots took up to $worst ms beside a 5 s receiver, $base ms without --push"
kill -TERM "$SLPID" "$RECPID"; wait "$SLPID"; wait "$RECPID"
pass "snapshot latency beside a receiver answering in 5 s: at most $worst ms (without --push $base ms)"
exit 0
