#!/bin/sh
# tests/e2e/tpformat.sh: crafted tracepoint data in a real recording (issue
# 27): format texts that killed libtraceevent (tests/fuzz/regress/tpformat,
# each one byte off sched_switch's), others of their kind made here (a field
# the print fmt names renamed, a bracket dropped, a division by zero, a field
# line broken, the wrong event's name), and records whose fields lie past
# their end (a field's offset, the RAW size, a __data_loc offset and length).
# Each file goes through dump and every report format under timeout and a
# memory bound: no crash, no hang, a "flightrec: FILE: event E: ..." line
# naming the damage, exit 1; the good file exits 0 everywhere.
. "$TESTLIB"
S=$(dirname "$(dirname "$(dirname "$TESTLIB")")")
SW=sched:sched_switch EX=sched:sched_process_exec

mkdir -p "$T/out"
record_fg -q -g -e "$SW" -e syscalls:sys_enter_read -e "$EX" -o "$T/out" -- \
	sh -c 'cat /etc/hostname >/dev/null; sleep 0.05; cat /etc/hostname >/dev/null' ||
	fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
[ $# -eq 1 ] && [ -f "$1" ] || fail "expected one file, got: $*"
good=$1
"$FLIGHTREC" dump "$good" >"$T/good.dump" || fail "dump of the good file exited $?"
for ev in "$SW" "$EX"; do
	grep -q " SAMPLE .* $ev " "$T/good.dump" || fail "the recording has no $ev sample"
done

# 1 GiB of address space, where the build allows it (ASan reserves terabytes)
limit=
(ulimit -v 1048576 && "$FLIGHTREC" --version) >/dev/null 2>&1 && limit="ulimit -v 1048576;"

x="$T/x.frec"   # every variant is read under one name
views() {       # name: each reader of $x; expect: exit code and a message
	name=$1 code=$2 pat=$3
	for v in "dump" "report" "report -g" "report -e $SW --folded" \
		"report --format=perf-script" "report --format=json" \
		"report -e $SW --format=pprof -o $T/o.pb.gz" "report -e $SW --format=html -o $T/o.html" \
		"report -e $SW --flamegraph=$T/o.svg"; do
		sh -c "$limit exec timeout 30 \"\$0\" $v \"\$1\"" "$FLIGHTREC" "$x" \
			>"$T/v.out" 2>"$T/v.err"
		rc=$?
		[ $rc -eq 124 ] && fail "$name: $v: hang"
		[ $rc -ge 128 ] && fail "$name: $v: crash (exit $rc): $(tail -3 "$T/v.err")"
		[ $rc -eq "$code" ] || fail "$name: $v: exit $rc, expected $code: $(cat "$T/v.err")"
		if [ "$code" -ne 0 ]; then
			grep -q "^flightrec: $x: $pat" "$T/v.err" ||
				fail "$name: $v: no message '$pat': $(cat "$T/v.err")"
			grep -qv '^flightrec: ' "$T/v.err" &&
				fail "$name: $v: not one-line messages: $(cat "$T/v.err")"
		fi
	done
	runs=$((runs + 9))
}
runs=0
cp "$good" "$x"
views good 0 ""

# frtpmut, the test's own file rewriter, keeps its buffers to its exit: no
# leak report from it in a sanitizer build
mut() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$HELPERS/frtpmut" "$@"; }

# format texts: the kept crashers, then mutations made here
mut print "$good" "$SW" >"$T/sw.fmt" || fail "frtpmut print: $?"
mut print "$good" "$EX" >"$T/ex.fmt" || fail "frtpmut print: $?"
n=0
for f in "$S"/tests/fuzz/regress/tpformat/s*; do
	mut format "$good" "$x" "$SW" "$f" || fail "frtpmut format $f: $?"
	views "${f##*/}" 1 "event $SW: format refused: "
	n=$((n + 1))
done
[ $n -ge 6 ] || fail "expected the kept format crashers, found $n"
mutate() {   # name, event, format file, sed expression, expected message
	sed "$4" "$3" >"$T/m.fmt"
	cmp -s "$3" "$T/m.fmt" && fail "$1: the mutation changed nothing"
	mut format "$good" "$x" "$2" "$T/m.fmt" || fail "frtpmut format $1: $?"
	views "$1" 1 "event $2: $5"
}
mutate renamed-field "$SW" "$T/sw.fmt" 's/long prev_state;/long xrev_state;/' \
	"format refused: print fmt: REC-> names no field (its fields are shown raw)"
mutate dropped-paren "$SW" "$T/sw.fmt" '/^print fmt/s/) ? "+"/ ? "+"/' \
	"format refused: print fmt: unbalanced brackets"
mutate division-by-zero "$SW" "$T/sw.fmt" '/^print fmt/s/0x00000001 |/0x0001 % 0 |/' \
	"format refused: print fmt: division by zero"
mutate broken-field-line "$SW" "$T/sw.fmt" 's/offset:24;/offset:2x;/' \
	"format refused: field line: bad offset"
mutate overlapping-field "$SW" "$T/sw.fmt" 's/offset:28;/offset:26;/' \
	"format refused: field line: field overlaps"
mutate other-name "$EX" "$T/ex.fmt" 's/^name: sched_process_exec/name: sched_process_fork/' \
	"format refused: the format names another event (sched_process_fork) (its samples have no fields)"
mutate loc-size "$EX" "$T/ex.fmt" 's/\(__data_loc char\[\] filename;.*size:\)4;/\18;/' \
	"format refused: field line: __data_loc size is not 4"

# records whose fields lie past their end (sched_switch: 64 bytes of fields)
mutate field-past-record "$SW" "$T/sw.fmt" 's/offset:60;/offset:2000;/' \
	"[0-9]* samples damaged: field next_prio (offset 2000, size 4) outside its"
mut rawsize "$good" "$x" "$SW" 40 || fail "frtpmut rawsize: $?"
views raw-size 1 "event $SW: [0-9]* samples damaged: field next_comm (offset 40, size 16) outside its 40-byte record"
# sched_process_exec's filename: a __data_loc u32 at 8, offset low, length high
mut raw "$good" "$x" "$EX" 8 f0ff || fail "frtpmut raw: $?"
views loc-offset 1 "event $EX: [0-9]* samples damaged: field filename (__data_loc offset 65520, length"
mut raw "$good" "$x" "$EX" 10 f0ff || fail "frtpmut raw: $?"
views loc-length 1 "event $EX: [0-9]* samples damaged: field filename (__data_loc offset [0-9]*, length 65520)"
pass "tpformat: $runs runs of dump and report, no crash, no hang, each damage named, exit 1"
