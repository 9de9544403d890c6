#!/bin/sh
# Damage sweep through the real binary (issue 9): a small real file, cut at
# many lengths, with seeded bit flips and zeroed ranges; `dump` and `report`
# of each (timeout 10 s): no crash (exit >= 128), no hang, nothing silent.
# Exit 0 is allowed only with the good file's output and only when all the
# damage lies in bytes doc/format.md says readers ignore (file header bytes
# 24-31, bits the zstd decoder ignores: frdamage names those "-inert"), or
# with the one line that a blob's kind is unknown (a kind field flipped to an
# unknown kind reads as a newer writer's blob: doc/format.md §4 BLOB);
# otherwise the exit is 1 or 2 with "flightrec: " lines on stderr.
# make check: every 25th length, 50 flips, 20 zeroed ranges (seed 9);
# DAMAGE_FULL=1: every length, 500 flips, 200 zeroed ranges.
. "$TESTLIB"
S=$(dirname "$(dirname "$(dirname "$TESTLIB")")")
good="$S/tests/fuzz/corpus/file/tp_read.frec"
if [ -n "${DAMAGE_FULL:-}" ]; then set -- 500 200 1; else set -- 50 20 25; fi
mkdir "$T/v"
"$HELPERS/frdamage" "$good" "$T/v" "$1" "$2" "$3" "${DAMAGE_SEED:-9}" || fail "frdamage: $?"
x="$T/x.frec"  # every variant is read under one name: outputs name the file
cp "$good" "$x"
"$FLIGHTREC" dump "$x" >"$T/good.dump" 2>&1 || fail "dump of the good file: $?"
"$FLIGHTREC" report "$x" >"$T/good.report" 2>&1 || fail "report of the good file: $?"
runs=0 crashes=0 hangs=0 silent=0 partial=0 errors=0 ignored=0 unknown=0
for v in "$T"/v/*; do
	name=${v##*/}
	# bytes the readers ignore: the file header's reserved u64 (24..31)
	case $name in
	*-inert) off=0 n=0 ;;
	flip-*) off=${name#flip-}; off=${off%-*}; n=1 ;;
	zero-*) off=${name#zero-}; n=${off#*-}; off=${off%-*} ;;
	*) off=-1 n=0 ;;
	esac
	cp "$v" "$x"
	ign=no
	[ "$off" -ge 24 ] && [ $((off + n)) -le 32 ] && ign=yes
	case $name in *-inert) ign=yes ;; esac
	for cmd in dump report; do
		runs=$((runs + 1))
		timeout 10 "$FLIGHTREC" $cmd "$x" >"$T/out" 2>"$T/err"
		rc=$?
		if [ $rc -eq 124 ]; then
			hangs=$((hangs + 1)); echo "hang: $cmd $name"
		elif [ $rc -ge 128 ]; then
			crashes=$((crashes + 1)); echo "crash ($rc): $cmd $name"; cp "$v" "${TMPDIR:-/tmp}/frdamage-crash-$name"
		elif [ $rc -eq 0 ]; then
			if [ $ign = yes ] && cmp -s "$T/out" "$T/good.$cmd"; then
				ignored=$((ignored + 1))
			elif [ "$(wc -l <"$T/err")" -eq 1 ] &&
				grep -q '^flightrec: .*blobs* of a kind this flightrec does not know' "$T/err"; then
				unknown=$((unknown + 1))   # a kind flipped to an unknown one: said, as a newer writer's
			else
				silent=$((silent + 1)); echo "silent: $cmd $name"
			fi
		elif [ $rc -eq 1 ] || [ $rc -eq 2 ]; then
			if ! [ -s "$T/err" ] || grep -qv '^flightrec: ' "$T/err"; then
				silent=$((silent + 1)); echo "no one-line message: $cmd $name: $(head -3 "$T/err")"
			fi
			[ $rc -eq 1 ] && partial=$((partial + 1)) || errors=$((errors + 1))
		else
			silent=$((silent + 1)); echo "exit $rc: $cmd $name"
		fi
	done
done
echo "damage sweep: $runs runs: $partial exit 1, $errors exit 2, $ignored ignored bytes (exit 0," \
	"same output), $unknown blob kinds flipped to unknown ones (exit 0, said), $crashes crashes," \
	"$hangs hangs, $silent silent"
[ $crashes -eq 0 ] && [ $hangs -eq 0 ] && [ $silent -eq 0 ] || fail "damage sweep: see above"
pass "damage sweep"
