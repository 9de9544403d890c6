#!/bin/sh
# tests/e2e/report_pprof.sh: profile cpuburn_fp with -g, write pprof, read it
# with `go tool pprof -top` and compare with `flightrec report --sort sym`:
# the same hottest function, shares within 3 points; `-lines -top` names the
# hot loop's file:line, `-list` shows its source, `-raw` the mappings (range,
# offset, build id, has_* flags) and the locations' addresses inside them.
. "$TESTLIB"

GO=$(command -v go || true)
[ -n "$GO" ] || { echo "SKIP: no go here (apt-get install golang-go)"; exit 77; }

mkdir -p "$T/out"
record_fg -q -F 999 -g -e cpu-clock -m 4M -o "$T/out" -- "$HELPERS/cpuburn_fp" 60 >/dev/null ||
	fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
F=$1

"$FLIGHTREC" report --format=pprof -o "$T/cpu.pb.gz" "$F" || fail "--format=pprof exited $?"
[ "$(head -c 2 "$T/cpu.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "not gzip"
"$FLIGHTREC" report --no-header --sort sym "$F" >"$T/sym.txt" || fail "report exited $?"

# go tool pprof needs no network; keep its caches here
export HOME="$T" GOPATH="$T/gopath" GOCACHE="$T/gocache" GOTOOLCHAIN=local GOFLAGS=
# -noinlines: inline frames count for the function they are in, as --sort sym does
"$GO" tool pprof -top -noinlines "$T/cpu.pb.gz" >"$T/top.txt" 2>"$T/pprof.err" ||
	fail "go tool pprof exited $?: $(cat "$T/pprof.err")"
grep -q '^Type: cpu$' "$T/top.txt" || fail "sample type is not cpu: $(head -5 "$T/top.txt")"
go_top=$(awk '/flat%/ {on=1; next} on {print $6; exit}' "$T/top.txt")
fr_top=$(awk '$1 ~ /%$/ {print $NF; exit}' "$T/sym.txt")
[ "$go_top" = "$fr_top" ] || fail "pprof's top function is '$go_top', flightrec's '$fr_top': $(head -12 "$T/top.txt")"
for f in hot_a hot_b; do
	g=$(awk -v f="$f" '$6 == f {sub("%", "", $2); print $2; exit}' "$T/top.txt")
	r=$(awk -v f="$f" '$NF == f && $1 ~ /%$/ {sub("%", "", $1); print $1; exit}' "$T/sym.txt")
	awk -v g="$g" -v r="$r" 'BEGIN {d = g - r; exit !(g != "" && r != "" && d <= 3 && d >= -3)}' ||
		fail "$f: pprof ${g:-no}%, flightrec ${r:-no}%: $(head -12 "$T/top.txt")"
	pass "$f: pprof $g%, flightrec $r%"
done
# the mappings carry the build ids the file recorded (Pyroscope/Parca key on them)
want=$(readelf -n "$HELPERS/cpuburn_fp" 2>/dev/null | awk '/Build ID/ {print $3}')
if [ -n "$want" ]; then
	"$GO" tool pprof -raw "$T/cpu.pb.gz" 2>/dev/null | sed -n '/^Mappings/,$p' >"$T/maps.txt"
	grep -q "cpuburn_fp $want" "$T/maps.txt" || fail "no mapping of cpuburn_fp with build id $want: $(cat "$T/maps.txt")"
	pass "the mapping of cpuburn_fp carries its build id"
fi
# addresses, mappings and source lines: the hot loop by file:line, its source
# listed; the program's mapping with its range, offset, build id and has_*
# flags, locations at addresses inside it (Pyroscope/Parca symbolize by them)
SRC=$(cd "$HELPERS/../.." && pwd)   # the sources' paths are relative to the build's top
TOPSRC=$(cd "$FIXTURES/../.." && pwd)   # the sources themselves (a VPATH build: elsewhere)
"$GO" tool pprof -lines -top "$T/cpu.pb.gz" >"$T/lines.txt" 2>"$T/pprof.err" ||
	fail "pprof -lines exited $?: $(cat "$T/pprof.err")"
# mix's body and hot_a's loop, by the lines of the source
mix_lines=$(awk '/unsigned long mix\(/ {on = 1} on {print NR} on && /^}/ {exit}' "$TOPSRC/tests/helpers/cpuburn.c" | tr '\n' ' ')
top=$(awk '/flat%/ {on = 1; next} on {print $6, $7; exit}' "$T/lines.txt")
case " $mix_lines " in
*" ${top##*/cpuburn.c:} "*) [ "${top%% *}" = mix ] ||
	fail "the hottest line is '$top', expected mix in cpuburn.c: $(head -12 "$T/lines.txt")" ;;
*) fail "the hottest line is '$top', not one of mix's ($mix_lines): $(head -12 "$T/lines.txt")" ;;
esac
loop=$(grep -n 's += mix(s + i);' "$TOPSRC/tests/helpers/cpuburn.c" | cut -d: -f1)
grep -Eq " hot_a .*cpuburn\.c:$loop\$" "$T/lines.txt" ||
	fail "no hot_a at cpuburn.c:$loop (its loop): $(head -14 "$T/lines.txt")"
pass "-lines: the hottest line is $top, hot_a's loop cpuburn.c:$loop"
"$GO" tool pprof -list '^hot_a$' -source_path "$SRC" "$T/cpu.pb.gz" >"$T/list.txt" 2>"$T/pprof.err" ||
	fail "pprof -list exited $?: $(cat "$T/pprof.err")"
grep -q '^ROUTINE =* hot_a in .*cpuburn\.c$' "$T/list.txt" || fail "-list: no ROUTINE hot_a: $(head -5 "$T/list.txt")"
awk -v n="$loop" '$0 ~ "[ \t]" n ":[ \t]+s [+]= mix[(]s [+] i[)];" && $1 != "." {f = 1} END {exit !f}' "$T/list.txt" ||
	fail "-list: line $loop of hot_a without its source or samples: $(cat "$T/list.txt")"
pass "-list hot_a shows its source with samples on line $loop"
"$GO" tool pprof -raw "$T/cpu.pb.gz" >"$T/raw.txt" 2>"$T/pprof.err" || fail "pprof -raw exited $?"
m=$(awk '/^Mappings/ {on = 1; next} on && / [^ ]*\/cpuburn_fp / {print; exit}' "$T/raw.txt")
# file and line flags only where every frame of the mapping's locations has
# them (as Go's runtime/pprof sets them); a rare sample where cpuburn_fp has
# no line table (its PLT, _start, the exit path's crt code) clears them
nolines=$(awk -v id="M=${m%%:*}" '/^Locations/ {on = 1; next} /^Mappings/ {on = 0}
	on && /^ *[0-9]+: 0x/ {cur = ($3 == id)}
	on && cur && !/ [^ ]+:[1-9][0-9]* s=/ {n++} END {print n + 0}' "$T/raw.txt")
if [ "$nolines" = 0 ]; then
	flags='\[FN\]\[FL\]\[LN\]\[IN\]'
else
	flags='\[FN\]'
	echo "note: $nolines frames in cpuburn_fp without a line: $(grep -v ':[1-9][0-9]* s=' "$T/raw.txt" | grep -m3 ' s=')"
fi
echo "$m" | grep -Eq "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ .*$flags\$" ||
	fail "the mapping of cpuburn_fp ($nolines frames without a line): '$m'"
set -- $(echo "$m" | awk '{split($2, r, "/"); print r[1], r[2], r[3]}')
start=$1 limit=$2
[ "$start" != 0x0 ] && [ "$limit" != 0x0 ] || fail "the mapping of cpuburn_fp has no range: $m"
id=${m%%:*}
awk -v id="M=$id" -v lo="$start" -v hi="$limit" "$AWKHEX"'
	/^Locations/ {on = 1; next} /^Mappings/ {on = 0}
	on && $3 == id && $4 == "hot_a" {n++; a = hex($2); if (a < hex(lo) || a >= hex(hi)) bad++}
	END {exit !(n > 0 && !bad)}' "$T/raw.txt" ||
	fail "hot_a's locations are not at addresses in $start-$limit: $(grep -m3 ' hot_a ' "$T/raw.txt")"
pass "mapping $m; hot_a's locations inside it"

# a pprof profile is binary: not onto a terminal, and -o works for the text report too
"$FLIGHTREC" report --no-header --sort sym -o "$T/sym2.txt" "$F" || fail "report -o exited $?"
cmp -s "$T/sym.txt" "$T/sym2.txt" || fail "report -o FILE differs from stdout"
pass "top function $go_top in both; -o FILE"
exit 0
