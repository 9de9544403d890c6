#!/bin/sh
# tests/e2e/report_pprof.sh: profile cpuburn_fp with -g, write pprof, read it
# with `go tool pprof -top` and compare with `flightrec report --sort sym`:
# the same hottest function, shares within 3 points.
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
# a pprof profile is binary: not onto a terminal, and -o works for the text report too
"$FLIGHTREC" report --no-header --sort sym -o "$T/sym2.txt" "$F" || fail "report -o exited $?"
cmp -s "$T/sym.txt" "$T/sym2.txt" || fail "report -o FILE differs from stdout"
pass "top function $go_top in both; -o FILE"
exit 0
