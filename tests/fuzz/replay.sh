#!/bin/sh
# tests/fuzz/replay.sh: every fuzz target's seed corpus and regression inputs
# (crashes found once) through its entry point, built with the main compiler:
# no input may crash (under --enable-sanitizers: no ASan/UBSan report).
. "$TESTLIB"
B=$(dirname "$(dirname "$FLIGHTREC")")
S=$(dirname "$(dirname "$(dirname "$TESTLIB")")")
LSAN_OPTIONS=suppressions=$S/tests/fuzz/lsan.supp; export LSAN_OPTIONS
for t in file reader record event control addrcache perfmap jitdump tpformat procs ksyms trigger vdso; do
	dirs=
	for d in "$S/tests/fuzz/corpus/$t" "$S/tests/fuzz/regress/$t"; do
		[ -d "$d" ] && dirs="$dirs $d"
	done
	# shellcheck disable=SC2086
	"$B/tests/fuzz/replay_$t" $dirs >/dev/null 2>"$T/$t.err" ||
		fail "fuzz_$t replay: exit $?: $(tail -5 "$T/$t.err")"
	pass "fuzz_$t: $(tail -1 "$T/$t.err")"
done
