# tests/e2e/lib.sh: shared helpers for the end-to-end tests (sourced).
# Each test runs the real binary on real kernel events in its own temp dir,
# with its own run dir, so tests may run in parallel.
set -u
: "${FLIGHTREC:?FLIGHTREC must point at the flightrec binary}"
: "${HELPERS:?HELPERS must point at tests/helpers}"
T=$(mktemp -d "${TMPDIR:-/tmp}/fr-e2e.XXXXXX")
export FLIGHTREC_RUN_DIR="$T/run"
export XDG_CACHE_HOME="$T/xdg-cache"   # report's build-id cache: never the machine's
BGPIDS=""
cleanup() {
	for p in $BGPIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# Run the recorder in the foreground; skip (77) only when the kernel refuses.
# Usage: record_fg ARGS...   (stderr goes to $T/record.err)
record_fg() {
	"$FLIGHTREC" record "$@" 2>"$T/record.err"
	rc=$?
	if [ "$rc" -eq 3 ] && grep -qE 'Permission denied|Operation not permitted' "$T/record.err"; then
		echo "SKIP: the kernel refuses perf_event_open here: $(cat "$T/record.err")" >&2
		exit 77
	fi
	return "$rc"
}

# Start a recorder in the background and wait for its control socket.
# Usage: record_bg NAME ARGS...
record_bg() {
	name=$1; shift
	"$FLIGHTREC" record --name "$name" "$@" 2>"$T/record-$name.err" &
	RECPID=$!
	BGPIDS="$BGPIDS $RECPID"
	for _ in $(seq 1 100); do
		[ -S "$FLIGHTREC_RUN_DIR/$name.sock" ] && return 0
		if ! kill -0 "$RECPID" 2>/dev/null; then
			wait "$RECPID"; rc=$?
			if [ "$rc" -eq 3 ]; then
				echo "SKIP: $(cat "$T/record-$name.err")" >&2
				exit 77
			fi
			fail "recorder $name exited ($rc): $(cat "$T/record-$name.err")"
		fi
		sleep 0.1
	done
	fail "recorder $name never opened its socket"
}

# The service's defaults: events and window, data/flightrec.default's
# FLIGHTREC_EVENTS (with --off-cpu-thresh) and FLIGHTREC_WINDOW.
service_defaults() {
	def=${DATADIR:-$(dirname "$TESTLIB")/../../data}/flightrec.default
	events=$(sed -n 's/^FLIGHTREC_EVENTS=//p' "$def")
	window=$(sed -n 's/^FLIGHTREC_WINDOW=//p' "$def")
	case "$events" in *--off-cpu-thresh*) ;; *) fail "the service's events lack --off-cpu-thresh: $events" ;; esac
}

# The service's defaults recording system-wide while CMD runs (its stdout
# into $T/work), then a snapshot and a stop; F: the snapshot file (in a
# fresh $T/out). $SERVICE_EXTRA: record options after the defaults'.
# Usage: service_run CMD ARGS...
service_run() {
	service_defaults
	rm -rf "$T/out"
	mkdir -p "$T/out"
	# shellcheck disable=SC2086
	record_bg svc -a $events $window ${SERVICE_EXTRA:-} -o "$T/out"
	grep -q 'BPF programs could not be loaded' "$T/record-svc.err" &&
		fail "the BPF programs were refused: $(cat "$T/record-svc.err")"
	"$@" >"$T/work" || fail "the workload $1 exited $?"
	"$FLIGHTREC" snapshot --name svc >/dev/null || fail "snapshot exited $?"
	kill -INT "$RECPID"; wait "$RECPID"
	F=$(ls "$T"/out/*.frec 2>/dev/null | head -n 1)
	[ -f "$F" ] || fail "no snapshot file: $(ls "$T/out")"
}

# The rows of a report's off-CPU per-thread table (12 fields: pid tid comm
# window on off S D R delay waits unknown). Usage: thread_rows FILE
thread_rows() { awk '/^# per thread/ { on = 1; getline; next } on && /^#/ { exit } on && NF == 12' "$1"; }

# One-line error check: the command fails with the given exit code and says
# exactly one line "flightrec: ...". Usage: expect_error CODE PATTERN CMD...
expect_error() {
	code=$1; pat=$2; shift 2
	"$@" >"$T/.out" 2>"$T/.err"
	rc=$?
	[ "$rc" -eq "$code" ] || fail "'$*' exited $rc, expected $code; stderr: $(cat "$T/.err")"
	[ "$(wc -l <"$T/.err")" -eq 1 ] || fail "'$*' printed $(wc -l <"$T/.err") stderr lines, expected 1: $(cat "$T/.err")"
	grep -qE "^flightrec: .*$pat" "$T/.err" || fail "'$*': stderr '$(cat "$T/.err")' does not match '$pat'"
	pass "$* -> $code: $(cat "$T/.err")"
}

# dump FILE to stdout: it reads when dump exits 0, or 1 with one line that
# says only what the file counts lost while recording (a ring that overflowed
# under a loaded machine); anything else returns dump's exit code.
# Usage: dump_reads FILE >OUT
dump_reads() {
	"$FLIGHTREC" dump "$1" 2>"$T/.dump.err"
	drc=$?
	if [ "$drc" -eq 1 ] && [ "$(wc -l <"$T/.dump.err")" -eq 1 ] &&
		grep -q 'records lost while recording' "$T/.dump.err"; then
		return 0
	fi
	cat "$T/.dump.err" >&2
	return "$drc"
}

# awk helper: hex("0x1f") -> 31 (mawk has no strtonum)
AWKHEX='function hex(s,  i,c,v){v=0; s=tolower(s); sub(/^0x/,"",s); for(i=1;i<=length(s);i++){c=index("0123456789abcdef",substr(s,i,1)); if(!c) return -1; v=v*16+c-1} return v}'

# The chunks of a flightrec file (doc/format.md §3), one line each:
# OFFSET TYPE FLAGS COMP_SIZE (offset of the chunk header; decimal).
# Usage: chunks FILE
chunks() {
	od -An -v -tu1 "$1" | tr -s ' \n' '\n\n' | grep -v '^$' | awk '
	{ b[n++] = $1 }
	function u(o, w,  v, i) { v = 0; for (i = w - 1; i >= 0; i--) v = v * 256 + b[o + i]; return v }
	END { o = 32; while (o + 32 <= n) { c = u(o + 16, 8)
		print o, u(o + 4, 2), u(o + 6, 2), c; o += 32 + c } }'
}

# Headless Chromium, its stdout to OUT, its stderr to $T/chrome.err; needs
# CHROMIUM. Usage: chrome OUT ARGS...
chrome() {
	out=$1; shift
	# --virtual-time-budget: the page's scripts run to idle before the
	# screenshot or the DOM is taken (a loaded machine drew half a page)
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--virtual-time-budget=10000 \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$T/chrome.XXXXXX")" "$@" >"$out" 2>>"$T/chrome.err"
}
# Non-white pixels of a PNG (8-bit RGB/RGBA, as Chromium writes them), of
# the rows FROM to TO (pixels; default all). Usage: inked PNG [FROM TO]
inked() {
	python3 - "$@" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
lo, hi = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (0, 1 << 30)
assert d[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat, w, h, ct = 8, b'', 0, 0, 0
while pos < len(d):
    n, kind = struct.unpack('>I4s', d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, bd, ct = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ct]
raw, stride, prev, ink = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if lo <= y <= hi:
        ink += sum(1 for x in range(0, stride, bpp) if min(line[x:x + 3]) < 235)
    prev = line
print(ink)
PY
}

# A Chrome trace's slices on each thread's track nest (as speedscope and
# Perfetto need: "Tried to end X when Y was on the top of the stack"): the
# complete ("X") slices and the begin/end pairs of every (pid, tid) are
# pairwise disjoint or nested, in the doubles a viewer computes ts + dur in.
# Prints the first crossings; exit 1 if any. Usage: json_nested TRACE
json_nested() {
	python3 - "$1" <<'PY'
import json, sys
from collections import defaultdict
d = json.load(open(sys.argv[1]))
lanes, opened = defaultdict(list), defaultdict(list)
for e in d["traceEvents"]:
    k, ph = (e.get("pid"), e.get("tid")), e.get("ph")
    if ph == "X":
        lanes[k].append((float(e["ts"]), float(e["ts"]) + float(e["dur"]), e["name"]))
    elif ph == "B":
        opened[k].append((float(e["ts"]), e["name"]))
    elif ph == "E" and opened[k]:
        ts, n = opened[k].pop()
        lanes[k].append((ts, float(e["ts"]), n))
bad = 0
for k, iv in lanes.items():
    iv.sort(key=lambda x: (x[0], -x[1]))
    st = []
    for a, b, n in iv:
        while st and st[-1][1] <= a:
            st.pop()
        if st and b > st[-1][1]:
            bad += 1
            if bad <= 3:
                print("crossing on %s: %s and %s" % (k, st[-1], (a, b, n)))
        st.append((a, b, n))
sys.exit(1 if bad else 0)
PY
}
