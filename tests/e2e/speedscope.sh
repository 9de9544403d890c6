#!/bin/sh
# tests/e2e/speedscope.sh: the JSON trace of a recording with context
# switches (the threads' state slices beside the samples' flame chart) loads
# in speedscope 1.25 itself, in headless Chromium, with no import error
# (issue 34: 10,143 "Tried to end ... when ... was on the top of the stack"
# and a RangeError before the slices nested), per command and system-wide.
# speedscope's release (npm install speedscope@1.25.0; quickstart installs it
# in /opt/speedscope) is served over http with the trace, as its
# #profileURL= wants; its console goes to Chromium's log.
. "$TESTLIB"

SS=${SPEEDSCOPE:-/opt/speedscope/node_modules/speedscope/dist/release}
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "SKIP: no chromium here (apt-get install chromium)"; exit 77; }
[ -f "$SS/index.html" ] || { echo "SKIP: no speedscope release in $SS (npm install speedscope@1.25.0)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 (its http.server serves the page)"; exit 77; }

mkdir -p "$T/www" "$T/cmd" "$T/sys"
cp -r "$SS"/. "$T/www/"
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$T/www" >"$T/http.out" 2>&1 &
BGPIDS="$BGPIDS $!"
port=""
for _ in $(seq 1 50); do
	port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$T/http.out" | head -1)
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || fail "http.server did not start: $(cat "$T/http.out")"

# load NAME: the trace $T/www/NAME.json in speedscope; its console checked
load() {
	log=$T/$1.log
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--virtual-time-budget=30000 --enable-logging=stderr --v=0 \
		--user-data-dir="$(mktemp -d "$T/chrome.XXXXXX")" --dump-dom \
		"http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/$1.json" \
		>"$T/$1.dom" 2>"$log" || fail "$1: chromium exited $?: $(tail -3 "$log")"
	grep -q '"Importing as Trace Event Format profile"' "$log" ||
		fail "$1: speedscope did not import it: $(grep CONSOLE "$log" | head -5)"
	bad=$(grep 'CONSOLE' "$log" | grep -Eic 'Tried to end|RangeError|Uncaught')
	[ "$bad" -eq 0 ] || fail "$1: $bad errors while importing: $(grep CONSOLE "$log" |
		grep -Ei 'Tried to end|RangeError|Uncaught' | head -3)"
	grep -q "<title>$1.json - speedscope" "$T/$1.dom" ||
		fail "$1: the profile is not shown: $(grep -o '<title>[^<]*' "$T/$1.dom")"
	pass "$1: speedscope 1.25 imports it with no error ($(grep -o '"import: [0-9.]* ms"' "$log"))"
}

record_fg -q --off-cpu -g -e cpu-clock -o "$T/cmd" -- "$HELPERS/offcpu_work" >/dev/null ||
	fail "record --off-cpu exited $?: $(cat "$T/record.err")"
"$FLIGHTREC" report --format=json -o "$T/www/cmd.json" "$T"/cmd/*.frec || fail "json exited $?"
grep -q '"name":"sleeping"' "$T/www/cmd.json" || fail "cmd: no state slices in the trace"
load cmd

record_bg ssys -a --off-cpu -g -e cpu-clock --keep 30s -o "$T/sys" --no-final
"$HELPERS/offcpu_work" >/dev/null || fail "the workload failed"
"$FLIGHTREC" snapshot --name ssys >/dev/null 2>"$T/snap.err" || fail "snapshot: $(cat "$T/snap.err")"
kill -INT "$RECPID"
wait "$RECPID"
set -- "$T"/sys/*.frec
"$FLIGHTREC" report --format=json -o "$T/www/sys.json" "$1" || fail "system-wide json exited $?"
load sys
