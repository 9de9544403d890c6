#!/bin/bash
# bench/report_speed.sh: how long `flightrec report` takes on a symbolized
# profile (issue 11), against `perf report --stdio` on perf's own recording
# of the same workload. Never part of make check. Run as root from the build
# tree (make bench-report).
#
# Profiles: big: two tests/helpers/cpuburn_fp on cpu-clock every 50 us
# (-c 50000, 20000 samples per CPU second) with -g, of as many rounds as make
# about SAMPLES samples (default 1.6 million, the issue's profile: samples per
# round are counted first in a short profile under the same recorder, since
# they vary with the machine and its load; the table gives the count the
# profile got; --burn ROUNDS fixes the rounds instead); small: one cpuburn_fp of 100 rounds
# every 1 ms (about 1000 samples). Each report is timed (wall seconds, peak
# RSS) with bench/runstat, the tools interleaved, N rounds; bench/frstat gives
# medians and the Student's t 95% interval of flightrec's mean against perf's.
#
# Usage: bench/report_speed.sh [--rounds N] [--samples N | --burn ROUNDS] [--before BIN] [--out DIR] [--publish]
#   --before BIN: also time another flightrec (an earlier build) in the same
#     rounds, interleaved: the table gains its rows and the after/before ratios
#   --publish: also write the "Report speed" section of doc/benchmarks.md
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
BB=${BB:-$PWD}                       # the build tree
FLIGHTREC=${FLIGHTREC:-$BB/src/flightrec}
FRSTAT=$BB/bench/frstat
RUNSTAT=$BB/bench/runstat
BURN=$BB/tests/helpers/cpuburn_fp
PERF=$(command -v perf || true)
ROUNDS=7
BURN_ROUNDS=""
SAMPLES=1600000
BEFORE=""
OUT=""
PUBLISH=0

die() { echo "report_speed: $*" >&2; exit 1; }
log() { echo "report_speed: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=${2:?}; shift ;;
	--burn) BURN_ROUNDS=${2:?}; shift ;;
	--samples) SAMPLES=${2:?}; shift ;;
	--before) BEFORE=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	--publish) PUBLISH=1 ;;
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
for b in "$FLIGHTREC" "$FRSTAT" "$RUNSTAT" "$BURN" ${BEFORE:+"$BEFORE"}; do
	[ -x "$b" ] || die "$b is not built (make bench-report builds it)"
done
[ "$(id -u)" = 0 ] || die "run as root (perf_event_open on cpu-clock, system files)"
[ "$ROUNDS" -ge 2 ] || die "--rounds: at least 2"
OUT=${OUT:-$BB/bench/out/report-speed-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
W=$(mktemp -d "${TMPDIR:-/tmp}/frrspeed.XXXXXX")
trap 'rm -rf "$W"' EXIT

# ---- the profiles ---------------------------------------------------------------
nsamples() { "$FLIGHTREC" report "$1" | sed -n 's/^# samples: \([0-9]*\),.*/\1/p' | head -n 1; }
if [ -z "$BURN_ROUNDS" ]; then
	# samples per round under the recorder itself (sampling at 20 kHz per
	# CPU slows the burn several times over on a VM): a short profile of
	# two burns of 200 rounds, then the rounds for SAMPLES
	mkdir -p "$W/cal"
	"$FLIGHTREC" record -q -c 50000 -g -e cpu-clock -m 64M --backward -o "$W/cal" \
		-- sh -c "$BURN 200 & $BURN 200; wait" >/dev/null
	cal=$(nsamples "$(ls "$W"/cal/*.frec)")
	[ -n "$cal" ] && [ "$cal" -gt 0 ] || die "calibration: no samples"
	BURN_ROUNDS=$(awk -v s="$SAMPLES" -v c="$cal" 'BEGIN { printf "%d", s / c * 200 + 0.5 }')
	log "calibration: $cal samples for two burns of 200 rounds: $BURN_ROUNDS rounds for ~$SAMPLES samples"
	rm -rf "$W/cal"
fi
two_burns="$BURN $BURN_ROUNDS & $BURN $BURN_ROUNDS; wait"
log "recording big: -c 50000 -g, two cpuburn_fp of $BURN_ROUNDS rounds (flightrec, then perf)"
mkdir -p "$W/big" "$W/small"
"$FLIGHTREC" record -q -c 50000 -g -e cpu-clock -m 256M --backward -o "$W/big" \
	-- sh -c "$two_burns" >/dev/null
log "recording small: -c 1000000 -g, one cpuburn_fp of 100 rounds"
"$FLIGHTREC" record -q -c 1000000 -g -e cpu-clock --backward -o "$W/small" \
	-- "$BURN" 100 >/dev/null
BIG=$(ls "$W"/big/*.frec) SMALL=$(ls "$W"/small/*.frec)
if [ -n "$PERF" ]; then
	"$PERF" record -q -g -e cpu-clock -c 50000 -m 16M -o "$W/big.data" \
		-- sh -c "$two_burns" >/dev/null 2>"$W/perf-big.err" || true
	"$PERF" record -q -g -e cpu-clock -c 1000000 -o "$W/small.data" \
		-- "$BURN" 100 >/dev/null 2>"$W/perf-small.err" || true
fi
{
	echo "big flightrec $(stat -c %s "$BIG") bytes, $(nsamples "$BIG") samples"
	echo "small flightrec $(stat -c %s "$SMALL") bytes, $(nsamples "$SMALL") samples"
	[ -f "$W/big.data" ] && echo "big perf $(stat -c %s "$W/big.data") bytes"
	[ -f "$W/small.data" ] && echo "small perf $(stat -c %s "$W/small.data") bytes"
} >"$OUT/files.txt"
cat "$OUT/files.txt" >&2

# ---- timed runs ------------------------------------------------------------------
# flightrec's build-id cache is the bench's own (CACHE): filled by one untimed
# report of each profile first, as a user's earlier report fills theirs (the
# decompressed copy of libc's debuginfo, the answers found by DWARF). The
# small-g-first rows remove the kept answers (*.addrsN) before each run: a
# first report of those objects.
CACHE=$W/cache
"$FLIGHTREC" report -g --cache "$CACHE" "$BIG" >/dev/null
"$FLIGHTREC" report -g --cache "$CACHE" "$SMALL" >/dev/null
nocached() { find "$CACHE" -name '*.addrs*' -delete; }

# one CASE TOOL: appends "CASE TOOL wall rss_kb exit" to OUT/raw.txt
one() {
	local c=$1 tool=$2 st=$W/st
	shift 2
	"$RUNSTAT" -o "$st" "$@" >/dev/null 2>"$W/err" || true
	read -r wall _ _ rss rc <"$st"
	echo "$c $tool $wall $rss $rc" >>"$OUT/raw.txt"
}

: >"$OUT/raw.txt"
# both: flightrec and --before in turn, which one first alternating by round:
# the first report of big after small-g-first removed the answers finds and
# keeps them again (more time and memory), the second reads them
both() {
	local c=$1 r=$2
	shift 2
	if [ -z "$BEFORE" ]; then
		one "$c" flightrec "$FLIGHTREC" "$@"
	elif [ $((r % 2)) -eq 1 ]; then
		one "$c" flightrec "$FLIGHTREC" "$@"
		one "$c" before "$BEFORE" "$@"
	else
		one "$c" before "$BEFORE" "$@"
		one "$c" flightrec "$FLIGHTREC" "$@"
	fi
}
for r in $(seq 1 "$ROUNDS"); do
	log "round $r of $ROUNDS"
	both big-g "$r" report -g --cache "$CACHE" "$BIG"
	[ -f "$W/big.data" ] && one big-g perf "$PERF" report --stdio --no-children -i "$W/big.data"
	both big-flat "$r" report --cache "$CACHE" "$BIG"
	[ -f "$W/big.data" ] && one big-flat perf "$PERF" report --stdio --no-children -g none \
		-i "$W/big.data"
	both small-flat "$r" report --cache "$CACHE" "$SMALL"
	[ -f "$W/small.data" ] && one small-flat perf "$PERF" report --stdio --no-children -g none \
		-i "$W/small.data"
	both small-g "$r" report -g --cache "$CACHE" "$SMALL"
	nocached
	one small-g-first flightrec "$FLIGHTREC" report -g --cache "$CACHE" "$SMALL"
	[ -f "$W/small.data" ] && one small-g perf "$PERF" report --stdio --no-children \
		-i "$W/small.data"
done
# a run that failed (perf 6.1 aborts in util/build-id.c on some recordings of
# newer kernels) is counted, never timed
awk '$5 != 0 { print "report_speed: nonzero exit: " $0 > "/dev/stderr" }' "$OUT/raw.txt"
awk '$5 == 0 { print $1, $2, $3 }' "$OUT/raw.txt" | "$FRSTAT" -c -b perf >"$OUT/wall.csv"
awk '$5 == 0 { print $1, $2, $4 / 1024 }' "$OUT/raw.txt" | "$FRSTAT" -c -b perf >"$OUT/rss.csv"
awk '$5 != 0 { n[$1 " " $2]++; rc[$1 " " $2] = $5 }
	END { for (k in n) print k, n[k], rc[k] }' "$OUT/raw.txt" | sort >"$OUT/failed.txt"

# ---- the table ---------------------------------------------------------------------
# wall.csv: key,config,n,median,mean,stddev,min,max,ratio_median,diff_pct,diff_ci95_pct,...
{
	echo "| profile | tool | n | wall median (s) | mean ± sd (s) | vs perf: mean diff ± 95% CI | peak RSS median (MiB) |"
	echo "|---|---|---|---|---|---|---|"
	awk -F, 'NR == FNR { if (FNR > 1) rss[$1 " " $2] = $4; next }
		FNR > 1 {
			d = ($10 == "") ? "" : sprintf("%+.1f%% ± %.1f%%", $10, $11)
			printf "| %s | %s | %s | %.3f | %.3f ± %.3f | %s | %.1f |\n",
				$1, $2, $3, $4, $5, $6, d, rss[$1 " " $2]
		}' "$OUT/rss.csv" "$OUT/wall.csv"
	if [ -s "$OUT/failed.txt" ]; then
		echo
		echo "Runs that failed (not timed): $(awk '{ printf "%s%s %s: %d of '"$ROUNDS"' (exit %d)", NR > 1 ? "; " : "", $1, $2, $3, $4 }' "$OUT/failed.txt")."
		[ -s "$W/perf-big.err" ] && echo "perf record said: $(sort -u "$W/perf-big.err" | head -n 2 | tr '\n' ' ')"
	fi
} >"$OUT/table.md"

med() { awk -F, -v k="$1" -v c="$2" -v col="$3" '$1 == k && $2 == c { print $col }' "$4"; }
verdict() { awk -v v="$1" -v lim="$2" 'BEGIN { print (v != "" && v <= lim) ? "met" : "**missed**" }'; }
bn=$(awk '$1 == "big" && $2 == "flightrec" { print $5 }' "$OUT/files.txt")
bg=$(med big-g flightrec 4 "$OUT/wall.csv")
bgr=$(med big-g flightrec 4 "$OUT/rss.csv")
bf=$(med big-flat flightrec 4 "$OUT/wall.csv")
sf=$(med small-flat flightrec 4 "$OUT/wall.csv")
sg=$(med small-g flightrec 4 "$OUT/wall.csv")
sg1=$(med small-g-first flightrec 4 "$OUT/wall.csv")
{
	echo
	echo "| target | measured (median) | verdict |"
	echo "|---|---|---|"
	# the verdicts of the big profile scale its time to 1.6M samples
	bgs=$(awk -v t="$bg" -v n="$bn" 'BEGIN { if (n > 0) printf "%.3f", t * 1600000 / n }')
	bfs=$(awk -v t="$bf" -v n="$bn" 'BEGIN { if (n > 0) printf "%.3f", t * 1600000 / n }')
	echo "| 1.6M-sample -g report ≤ 0.2 s | ${bg} s for $bn samples: ${bgs} s per 1.6M | $(verdict "$bgs" 0.2) |"
	echo "| 1.6M-sample -g report ≤ 64 MiB peak RSS ($bn samples) | ${bgr} MiB | $(verdict "$bgr" 64) |"
	echo "| 1.6M-sample report (default sort) ≤ 0.2 s | ${bf} s for $bn samples: ${bfs} s per 1.6M | $(verdict "$bfs" 0.2) |"
	echo "| small profile ≤ 30 ms (default sort) | ${sf} s | $(verdict "$sf" 0.03) |"
	echo "| small profile ≤ 30 ms (-g) | ${sg} s | $(verdict "$sg" 0.03) |"
	echo "| small profile ≤ 30 ms (-g), the first report of its objects (no answers kept) | ${sg1} s | $(verdict "$sg1" 0.03) |"
} >>"$OUT/table.md"
if [ -n "$BEFORE" ]; then
	{
		echo
		echo "| profile | before: wall median (s) | after (s) | after/before | before: RSS (MiB) | after (MiB) |"
		echo "|---|---|---|---|---|---|"
		for c in big-g big-flat small-flat small-g; do
			b=$(med "$c" before 4 "$OUT/wall.csv") a=$(med "$c" flightrec 4 "$OUT/wall.csv")
			br=$(med "$c" before 4 "$OUT/rss.csv") ar=$(med "$c" flightrec 4 "$OUT/rss.csv")
			awk -v c="$c" -v b="$b" -v a="$a" -v br="$br" -v ar="$ar" 'BEGIN {
				r = b > 0 ? sprintf("%.2f", a / b) : ""
				printf "| %s | %.3f | %.3f | %s | %.1f | %.1f |\n", c, b, a, r, br, ar }'
		done
		echo
		echo "before: $BEFORE ($("$BEFORE" --version 2>/dev/null | head -n 1))"
	} >>"$OUT/table.md"
fi
cat "$OUT/table.md"

# ---- doc/benchmarks.md ---------------------------------------------------------------
if [ "$PUBLISH" = 1 ]; then
	doc=$TOP/doc/benchmarks.md
	sec=$W/section.md
	{
		echo "## Report speed"
		echo
		echo "Generated by \`make bench-report\` (bench/report_speed.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),"
		echo "$(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg); $("$FLIGHTREC" --version 2>/dev/null | head -n 1)."
		echo "Profiles: *big*: two \`tests/helpers/cpuburn_fp $BURN_ROUNDS\` under \`record -c 50000 -g -e cpu-clock\`;"
		echo "*small*: one \`cpuburn_fp 100\` under \`-c 1000000 -g\`; perf recorded the same commands with the"
		echo "same options. \`flightrec report [-g] FILE\` against \`perf report --stdio --no-children [-g none]\`,"
		echo "interleaved, $ROUNDS rounds; wall time and peak RSS from bench/runstat, statistics from bench/frstat"
		echo "(the interval: flightrec's mean minus perf's, in percent of perf's, Student's t 95%)."
		echo "flightrec reads a build-id cache of the bench's own (\`--cache\`), filled first by one untimed"
		echo "report of each profile, as a user's earlier report fills theirs (libc's debuginfo decompressed,"
		echo "the frames found by DWARF kept); *small-g-first* removes the kept frames before each run: the"
		echo "first report of those objects."
		echo
		sed 's/^/    /' "$OUT/files.txt"
		echo
		cat "$OUT/table.md"
		echo
	} >"$sec"
	if grep -q '^## Report speed' "$doc"; then
		awk -v f="$sec" '
			/^## Report speed/ { while ((getline l < f) > 0) print l; skip = 1; next }
			skip && /^## / { skip = 0 }
			!skip' "$doc" >"$W/doc.md"
	else
		awk -v f="$sec" '
			/^## Discussion/ && !done { while ((getline l < f) > 0) print l; done = 1 }
			{ print }
			END { if (!done) { print ""; while ((getline l < f) > 0) print l } }' "$doc" >"$W/doc.md"
	fi
	cp "$W/doc.md" "$doc"
	log "wrote the Report speed section of $doc"
fi
log "results in $OUT"
