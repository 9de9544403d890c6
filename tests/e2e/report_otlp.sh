#!/bin/sh
# tests/e2e/report_otlp.sh: --format=otlp decoded by protoc with the .proto
# files of tests/otlp/ (written from the spec's field numbers): on cpuburn_fp
# the leaf functions' shares equal `report --sort sym`'s within 0.5 points,
# every sample has one wall-clock timestamp inside the recording's span and
# the profile's window, the resource names the host, the trigger is the
# profile's attributes, the mappings carry the build ids pprof's do; on the
# inline fixture every location has the inline frames pprof's has.
. "$TESTLIB"

command -v protoc >/dev/null || { echo "SKIP: no protoc (apt-get install protobuf-compiler)"; exit 77; }
TOPSRC=$(cd "$FIXTURES/../.." && pwd)
PROTOS=$TOPSRC/tests/otlp
REQ=opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest
otlp_json() {   # FILE.pb -> JSON on stdout
	python3 "$TOPSRC/tests/helpers/pbtext.py" "$PROTOS" \
		opentelemetry/proto/collector/profiles/v1development/profiles_service.proto "$REQ" <"$1"
}
pprof_json() {
	python3 "$TOPSRC/tests/helpers/pbtext.py" "$TOPSRC/src/report/fmt" profile.proto \
		perftools.profiles.Profile --gunzip <"$1"
}

mkdir -p "$T/out" "$T/inl"
before=$(date +%s%N)
record_fg -q -F 999 -g -e cpu-clock -m 4M -o "$T/out" -- "$HELPERS/cpuburn_fp" 60 >/dev/null ||
	fail "record exited $?: $(cat "$T/record.err")"
after=$(date +%s%N)
set -- "$T"/out/*.frec
F=$1
"$FLIGHTREC" report --format=otlp -o "$T/o.pb" "$F" || fail "--format=otlp exited $?"
"$FLIGHTREC" report --format=pprof -o "$T/p.pb.gz" "$F" || fail "--format=pprof exited $?"
"$FLIGHTREC" report --sort sym "$F" >"$T/sym.txt" || fail "report exited $?"
otlp_json "$T/o.pb" >"$T/o.json" || fail "protoc could not decode the request"
pprof_json "$T/p.pb.gz" >"$T/p.json" || fail "protoc could not decode the pprof profile"
bid=$(readelf -n "$HELPERS/cpuburn_fp" 2>/dev/null | awk '/Build ID/ {print $3}')

python3 - "$T/o.json" "$T/p.json" "$T/sym.txt" "$before" "$after" "$(uname -n)" "${bid:-}" <<'PY' || fail "the OTLP request: see above"
import json, re, sys
o = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
sym = open(sys.argv[3]).read(); before, after = int(sys.argv[4]), int(sys.argv[5])
host, bid = sys.argv[6], sys.argv[7]
bad = []
g = lambda m, k, d=0: m.get(k, [d])[0]
D = o['dictionary'][0]; S = D['string_table']
assert S[0] == '', 'string 0 is not empty'
for t in ('mapping_table', 'location_table', 'function_table', 'attribute_table', 'stack_table'):
    assert D[t][0] == {}, t + '[0] is not the zero entry'
A = D['attribute_table']
def attrs(idx):
    out = {}
    for i in idx:
        v = A[i]['value'][0]
        out[S[g(A[i], 'key_strindex')]] = list(v.values())[0][0]
    return out
rp = o['resource_profiles']; assert len(rp) == 1, 'one resource'
res = {a['key'][0]: list(a['value'][0].values())[0][0] for a in rp[0]['resource'][0]['attributes']}
if res.get('host.name') != host: bad.append('host.name %r, expected %r' % (res.get('host.name'), host))
if res.get('os.type') != 'linux': bad.append('os.type %r' % res.get('os.type'))
profs = rp[0]['scope_profiles'][0]['profiles']
cpu = [x for x in profs if S[g(x['sample_type'][0], 'type_strindex')] == 'cpu']
assert len(cpu) == 1, 'one cpu profile, got %d of %d' % (len(cpu), len(profs))
cpu = cpu[0]
assert S[g(cpu['sample_type'][0], 'unit_strindex')] == 'nanoseconds', 'cpu unit'
t0 = g(cpu, 'time_unix_nano'); dur = g(cpu, 'duration_nano')
# every sample: one timestamp per value, inside the run and the profile's window
n = 0; leaf = {}
for s in cpu['samples']:
    vals, ts = s.get('values', []), s.get('timestamps_unix_nano', [])
    if len(vals) != len(ts): bad.append('sample with %d values and %d timestamps' % (len(vals), len(ts)))
    for t in ts:
        if not (before <= t <= after and t0 <= t <= t0 + dur):
            bad.append('timestamp %d outside the run %d..%d or the window %d+%d' % (t, before, after, t0, dur)); break
    n += len(vals)
    locs = D['stack_table'][g(s, 'stack_index')]['location_indices']
    lines = D['location_table'][locs[0]].get('lines', [])
    fn = S[g(D['function_table'][g(lines[-1], 'function_index')], 'name_strindex')] if lines else '?'
    leaf[fn] = leaf.get(fn, 0) + len(vals)
    sa = attrs(s.get('attribute_indices', []))
    if 'thread.name' not in sa or 'process.pid' not in sa: bad.append('sample attributes %r' % sa)
want = int(re.search(r'# samples: (\d+)', sym).group(1))
if n != want: bad.append('%d samples in the cpu profile, report says %d' % (n, want))
rows = [(float(m.group(1)), m.group(2)) for m in re.finditer(r'^\s+([\d.]+)%\s+\d+\s+\[.\]\s+(\S+)$', sym, re.M)]
for share, name in rows:
    if share < 1: continue
    got = 100.0 * leaf.get(name, 0) / max(n, 1)
    if abs(got - share) > 0.5: bad.append('%s: %.2f%% in OTLP, %.2f%% in report --sort sym' % (name, got, share))
    else: print('ok: %s %.2f%% (report %.2f%%)' % (name, got, share))
# the trigger: the command's exit, at a time inside the run
pa = attrs(cpu.get('attribute_indices', []))
if pa.get('flightrec.trigger.source') != 'exit': bad.append('trigger source %r' % pa)
if not before <= pa.get('flightrec.trigger.time_unix_nano', 0) <= after: bad.append('trigger time %r' % pa)
# build ids: the mappings' as pprof's
def obids():
    out = set()
    for m in D['mapping_table'][1:]:
        b = attrs(m.get('attribute_indices', [])).get('process.executable.build_id.gnu')
        if b: out.add((S[g(m, 'filename_strindex')], b))
    return out
PS = p['string_table']
pb = {(PS[g(m, 'filename')], PS[g(m, 'build_id')]) for m in p['mapping'] if g(m, 'build_id')}
if obids() != pb: bad.append('build ids %r, pprof %r' % (sorted(obids()), sorted(pb)))
if bid and not any(f.endswith('/cpuburn_fp') and b == bid for f, b in obids()):
    bad.append('no mapping of cpuburn_fp with build id ' + bid)
print('ok: %d samples, %d profiles, %d build ids, trigger %s' % (n, len(profs), len(pb), pa.get('flightrec.trigger.source')))
for b in bad: print('FAIL:', b)
sys.exit(1 if bad else 0)
PY
pass "cpuburn_fp: shares, timestamps, host, trigger and build ids"

# inline frames: every location's lines as pprof has them (address by address)
record_fg -q -F 999 -g -o "$T/inl" -- "$FIXTURES/inline.bin" 300000000 >/dev/null ||
	fail "record inline.bin exited $?: $(cat "$T/record.err")"
set -- "$T"/inl/*.frec
"$FLIGHTREC" report --format=otlp -o "$T/i.pb" "$1" || fail "--format=otlp exited $?"
"$FLIGHTREC" report --format=pprof -o "$T/i.pb.gz" "$1" || fail "--format=pprof exited $?"
otlp_json "$T/i.pb" >"$T/i.json" || fail "protoc could not decode the request"
pprof_json "$T/i.pb.gz" >"$T/ip.json" || fail "protoc could not decode the pprof profile"
python3 - "$T/i.json" "$T/ip.json" <<'PY' || fail "inline frames differ from pprof's"
import json, sys
o = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
g = lambda m, k, d=0: m.get(k, [d])[0]
D = o['dictionary'][0]; S = D['string_table']; PS = p['string_table']
ofn = lambda i: S[g(D['function_table'][i], 'name_strindex')]
pf = {g(f, 'id'): PS[g(f, 'name')] for f in p['function']}
ol = {g(l, 'address'): [(ofn(g(x, 'function_index')), g(x, 'line')) for x in l.get('lines', [])]
      for l in D['location_table'][1:]}
pl = {g(l, 'address'): [(pf[g(x, 'function_id')], g(x, 'line')) for x in l.get('line', [])]
      for l in p['location']}
multi = sum(len(v) > 1 for v in ol.values())
if ol != pl:
    d = [a for a in set(ol) | set(pl) if ol.get(a) != pl.get(a)][:3]
    print('FAIL: locations differ, e.g.', [(hex(a), ol.get(a), pl.get(a)) for a in d]); sys.exit(1)
if not multi: print('FAIL: no location with inline frames'); sys.exit(1)
print('ok: %d locations as pprof has them, %d with inline frames' % (len(ol), multi))
PY
pass "inline.bin: every location's inline frames as pprof's"
exit 0
