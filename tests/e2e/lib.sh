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
