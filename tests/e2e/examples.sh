#!/bin/sh
# tests/e2e/examples.sh: every example command line of README.md's "Using it"
# block and of each command's --help Examples runs as a user would copy it:
# ./server is a test workload, 1234 a live pid, FILE a recorded file, outputs
# in a temp dir, --comm/--time FILE's command and span; commands that
# record until stopped get a SIGINT after 2 s, snapshot examples a running
# recorder. Each must exit 0.
. "$TESTLIB"
F=$FLIGHTREC
SRC=$(cd "$(dirname "$TESTLIB")/../.." && pwd)
[ -f "$SRC/README.md" ] || fail "no README.md in $SRC"
mkdir -p "$T/out" "$T/home"
export HOME="$T/home"
cd "$T/out" || fail "cd"

# the examples, one per line
{
	# README: indented lines of the "Using it" block, joined over a trailing \
	awk '/^## Using it/ {on=1; next} /^## / {on=0}
		on && (/^    [a-z]/ || (line != "" && /^     /)) {
		sub(/^ +/, ""); sub(/ +#.*$/, ""); line = line (line == "" ? "" : " ") $0
		if (line ~ /\\$/) { sub(/ *\\$/, "", line); next }
		print line; line = "" }' "$SRC/README.md"
	for c in "" record snapshot dump report archive; do
		$F $c --help | awk '/^Examples:/ {on=1; next} on && /^$/ {on=0} on'
	done
} | sed -e 's/^ *//' -e 's/  .*$//' -e 's/ *#.*$//' | grep -E '^(flightrec|kill) ' >"$T/examples.txt"
[ "$(wc -l <"$T/examples.txt")" -ge 15 ] || fail "found only $(wc -l <"$T/examples.txt") examples"

# FILE: one recorded file, with its context switches (report --latency);
# a recorder for snapshot/kill examples
"$F" record -q -g --backward -e cpu-clock --off-cpu -o "$T/out" -- "$HELPERS/cpuburn_fp" 30 >/dev/null ||
	fail "recording FILE exited $?"
FILE=$(ls "$T"/out/*.frec | head -1)
# --comm server --time A,B: FILE's command and the span of its samples (a
# filter that selects nothing exits 1)
SPAN=$("$F" dump --no-header "$FILE" | awk '$4 == "SAMPLE" { if (!a) a = $1; b = $1 } END { print a "," b }')
# --time 14:03:10-14:03:14 (wall clock, local time on the file's date): the
# minutes around the recording just made (not across midnight)
WSPAN="$(date -d '-120 sec' +%H:%M:%S)-$(date -d '+60 sec' +%H:%M:%S)"
case $WSPAN in 23:5[89]:*-00:*|23:59:*-00:*) WSPAN="$(date -d '-120 sec' +%H:%M:%S)-23:59:59" ;; esac
mkdir -p objs
record_bg web -a --backward -g -e cpu-clock -F 99 -o "$T/out" --no-final-snapshot
SNAPREC=$RECPID

# -G names a cgroup of the README's machine: here, a fresh one
CG=""
cg2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
if [ -n "$cg2" ] && mkdir "$cg2/frexample-$$" 2>/dev/null; then
	CG=frexample-$$
	trap 'rmdir "$cg2/$CG" 2>/dev/null; cleanup' EXIT
fi
n=0
while IFS= read -r ex; do
	case "$ex" in *" -G "*) [ -n "$CG" ] || { echo "skipped (no cgroup v2 here): $ex"; continue; } ;; esac
	cmd=$(printf '%s\n' "$ex" | sed -e "s#^flightrec #\"$F\" #" -e "s#| flightrec #| \"$F\" #" \
		-e "s#\./server --port 8080#$HELPERS/cpuburn_fp 30#" -e "s#\./server\b#$HELPERS/cpuburn_fp 30#" \
		-e "s#/var/tmp/fr#$T/out#" -e "s#\\\$(pidof flightrec)#$SNAPREC#" \
		-e "s#flightrec-default-\*\.frec#$FILE#" -e "s#\bFILE\b#$FILE#g" -e "s#--symdir DIR#--symdir objs#" -e 's#flamegraph.pl#cat#' \
		-e "s#-G system.slice/nginx.service#-G $CG#" \
		-e "s#--comm server --time 1200.5,1201#--comm cpuburn_fp --time $SPAN#" \
		-e "s#--time 14:03:10-14:03:14#--time $WSPAN#")
	case "$ex" in
	*" -p 1234"*)
		sleep 2 & tp=$!
		cmd=$(printf '%s\n' "$cmd" | sed "s#-p 1234#-p $tp#") ;;
	"flightrec record "*" -- "*) ;;
	"flightrec record "*) cmd="timeout --preserve-status -s INT 2 $cmd" ;;
	esac
	sh -c "$cmd" >"$T/ex.out" 2>"$T/ex.err"; rc=$?
	[ $rc -eq 0 ] || fail "example '$ex' ($cmd) exited $rc: $(head -3 "$T/ex.err")"
	n=$((n + 1))
	pass "$ex"
done <"$T/examples.txt"
kill -0 $SNAPREC 2>/dev/null || fail "the recorder for the snapshot examples died"
pass "$n examples ran"
exit 0
