#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# bench/pg_toggle.sh: what the off-CPU hooks' invocations cost a real
# server, second by second. pg_switch.sh's blocks of 8 s lie 12 s apart,
# where pgbench's per-second throughput has lost most of its correlation
# (0.3 at 12 s, 0.8 at 1 s here), so its paired differences stay ±3-5
# points wide. Here bench/bpf/empty.c -t attaches the empty programs
# (bench/bpf/empty.bpf.c: all, or --programs) in every other second of one
# pgbench -c 4 -j 2 -P 1 --progress-timestamp run, its seconds aligned to
# pgbench's progress lines, and each second with them on is compared with the
# mean of the seconds either side of it, off (triples that share no second).
# A change takes ~1-2 ms (attach, detach); a second whose state was not the
# same throughout, less 20 ms, is left out.
# Prints "WORKLOAD TRIPLE off|on TPS" lines, bench/frstat -p off's paired
# differences (points of off: median, mean ± Student's t 95%) and the counts.
# Root (BPF). Builds the programs with clang and libbpf into a temporary
# directory.
#   bench/pg_toggle.sh [--seconds N] [--workload tpcb|select]
#                      [--programs "fr_empty_switch fr_empty_resume"] [--out DIR]
# Defaults: --seconds 1200 --workload tpcb, both programs.
# --out DIR keeps pg-toggle-runs.txt (the lines), pg-toggle-changes.txt (the
# loader's "on|off T0 T1" lines) and pg-toggle-progress.txt (pgbench's).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
seconds=1200 workload=tpcb programs="" out=""
usage() { echo "pg_toggle.sh: $*" >&2; exit 64; }
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift ;;
	--workload) workload=$2; shift ;;
	--programs) programs=$2; shift ;;
	--out) out=$2; shift ;;
	-h|--help) sed -n '2,23p' "$0"; exit 0 ;;
	*) usage "unknown option $1" ;;
	esac
	shift
done
case "$seconds" in ''|*[!0-9]*) usage "--seconds: a whole number, not '$seconds'" ;; esac
[ "$seconds" -ge 20 ] || usage "--seconds: at least 20"
case "$workload" in tpcb) wopt="" ;; select) wopt="-S" ;; *) usage "--workload: tpcb or select, not '$workload'" ;; esac
[ -x "$top/bench/frstat" ] || make -C "$top" bench/frstat >/dev/null || exit 1
# shellcheck source=pglib.sh
. "$here/pglib.sh"
pg_find pg_toggle.sh
pg_tmp pgtg
# shellcheck source=pgrec.sh
. "$here/pgrec.sh"
tg=""
stop_toggle() {
	[ -n "$tg" ] || return 0
	kill -INT "$tg" 2>/dev/null
	wait "$tg" 2>/dev/null
	tg=""
}
cleanup() { stop_toggle; stop_pgbench; pg_stop; }
trap cleanup EXIT
trap 'exit 130' INT TERM
build_empty
pg_start ""

prog=$tmp/progress.txt changes=$tmp/changes.txt
# shellcheck disable=SC2086
pgb -c 4 -j 2 -T $((seconds + 20)) -P 1 --progress-timestamp $wopt >"$tmp/pgbench.txt" 2>"$prog" & pb=$!
pgb_started "$prog" || exit 1
base=$(awk '$1 == "progress:" { print $2; exit }' "$prog")
# shellcheck disable=SC2086
"$tmp/empty" -t "$base" "$tmp/empty.bpf.o" $programs >"$changes" & tg=$!
sleep "$seconds"
stop_toggle
stop_pgbench
[ -s "$changes" ] || { echo "pg_toggle.sh: the loader changed nothing" >&2; exit 1; }

runs=$tmp/runs.txt
python3 - "$workload" "$prog" "$changes" >"$runs" <<'PY' || exit 1
import sys
workload, progf, chf = sys.argv[1:4]
secs = []          # (start, end, tps): each progress line's second
prev = None
for line in open(progf):
    f = line.split()
    if len(f) > 4 and f[0] == "progress:" and f[2] == "s," and f[4] == "tps,":
        ts = float(f[1])
        if prev is not None:
            secs.append((prev, ts, float(f[3])))
        prev = ts
changes = []       # (t0, t1, on): the loader's changes, in order
for line in open(chf):
    f = line.split()
    if len(f) == 3 and f[0] in ("on", "off"):
        changes.append((float(f[1]), float(f[2]), f[0] == "on"))
if not changes:
    sys.exit("pg_toggle.sh: no changes")
slack = 0.020

def state(a, b):
    """on or off throughout [a + slack, b - slack], else None"""
    st = False if a < changes[0][0] else None
    for t0, t1, on in changes:
        if t1 <= a + slack:
            st = on
        elif t0 < b - slack:
            return None     # a change inside the second
    return st

marks = [state(a, b) for a, b, _ in secs]
i, k = 1, 0
while i + 1 < len(secs):
    contiguous = abs(secs[i - 1][1] - secs[i][0]) < 1e-6 and abs(secs[i][1] - secs[i + 1][0]) < 1e-6
    if marks[i] is True and marks[i - 1] is False and marks[i + 1] is False and contiguous:
        k += 1
        print(f"{workload} {k} off {(secs[i - 1][2] + secs[i + 1][2]) / 2:.1f}")
        print(f"{workload} {k} on {secs[i][2]:.1f}")
        i += 3     # the next triple shares no second with this one
    else:
        i += 1
n_on = sum(1 for m in marks if m is True)
n_off = sum(1 for m in marks if m is False)
print(f"pg_toggle.sh: {len(secs)} seconds: {n_on} on, {n_off} off, "
      f"{len(secs) - n_on - n_off} left out; {k} triples", file=sys.stderr)
PY
cat "$runs"
if [ -n "$out" ]; then
	mkdir -p "$out" || exit 1
	cp "$runs" "$out/pg-toggle-runs.txt"
	cp "$changes" "$out/pg-toggle-changes.txt"
	cp "$prog" "$out/pg-toggle-progress.txt"
fi
"$top/bench/frstat" -p off -b off "$runs"
