#!/bin/sh
# tests/e2e/jit.sh: JIT code named from perf maps and jitdumps with real
# runtimes: node --perf-basic-prof (its function under "[JIT] tid PID", from
# the local /tmp/perf-PID.map; then with the map removed: from the file's
# PERFMAP blob, and in a copy of the file whose PERFMAP blobs are damaged
# (said, exit 1) from `flightrec archive -o X.tar` + `report --symdir`, named
# in >= 95% of the samples it had); node
# --perf-prof (its jit-PID.dump, removed before the report: >= 95% of the
# samples in JIT code named, the function among them); and a JVM compiled
# with javac (-XX:+DumpPerfMapAtExit: the map written at exit, copied by the
# recorder, removed before the report). Unnamed JIT frames are counted in a
# note.
. "$TESTLIB"

# the named samples of a report line matching $2 in the report $1
count() { grep -v '^#' "$1" | grep -F -- "$2" | awk '{ n += $2 } END { print n + 0 }'; }

# 1. node
if command -v node >/dev/null 2>&1; then
	cat >"$T/hot.js" <<'JS'
function hotLoopAlpha(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; }
const end = Date.now() + Number(process.argv[2] || 1500); let x = 0;
while (Date.now() < end) x += hotLoopAlpha(100000);
console.log(x);
JS
	mkdir -p "$T/node"
	# in $T: node writes its isolate-*-v8.log into the current directory
	(cd "$T" && record_fg -q -F 999 -g -e cpu-clock -m 4M -o "$T/node" -- node --perf-basic-prof "$T/hot.js" >/dev/null) ||
		fail "record node exited $?: $(cat "$T/record.err")"
	set -- "$T"/node/*.frec
	f=$1
	"$FLIGHTREC" report --sort pid,dso,sym "$f" >"$T/n1.txt" || fail "report exited $?"
	pid=$(grep -v '^#' "$T/n1.txt" | grep -F 'hotLoopAlpha' | awk '{ print $3; exit }')
	[ -n "$pid" ] || fail "node: hotLoopAlpha not named: $(head -30 "$T/n1.txt")"
	grep -qE "  \[JIT\] tid $pid +\[\.\] JS:[*~]?hotLoopAlpha " "$T/n1.txt" ||
		fail "node: hotLoopAlpha is not a function of [JIT] tid $pid: $(grep hotLoop "$T/n1.txt")"
	with=$(count "$T/n1.txt" hotLoopAlpha)
	[ "$with" -ge 30 ] || fail "node: only $with samples named hotLoopAlpha"
	pass "node --perf-basic-prof: hotLoopAlpha under [JIT] tid $pid ($with samples, map present)"

	# the map removed: named from the file's own copy (the PERFMAP blob)
	# where the recorder wrote one, else from what archive carried
	mv "/tmp/perf-$pid.map" "$T/perf-$pid.map.away" || fail "no /tmp/perf-$pid.map"
	"$FLIGHTREC" report --sort pid,dso,sym "$f" >"$T/n3.txt" || fail "report (map removed) exited $?"
	got=$(count "$T/n3.txt" hotLoopAlpha)
	"$HELPERS/frblobs" "$f" | grep -q "^perfmap pid=$pid " || fail "node: the file has no PERFMAP blob of pid $pid"
	[ "$((got * 100))" -ge "$((with * 95))" ] ||
		fail "node, map removed: the file's PERFMAP blob names $got of $with samples"
	pass "node, map removed: the file's copy names $got of $with samples"

	# a copy of the file whose PERFMAP blobs are damaged (their zstd
	# checksums flipped): skipped and said; without /tmp's map the JIT
	# frames are counted unnamed; archive carries the local map and report
	# --symdir names them from it
	python3 - "$f" "$T/nomap.frec" <<'PY' || fail "could not damage the PERFMAP blobs"
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off, n = 32, 0
while off + 32 <= len(d):
    magic, typ, flags, stream, kind, comp, raw = struct.unpack_from('<IHHIIQQ', d, off)
    if magic != 0x4b434652:
        break
    if typ == 6 and kind == 5:
        d[off + 32 + comp - 1] ^= 0xff
        n += 1
    off += 32 + comp
open(sys.argv[2], 'wb').write(d)
sys.exit(0 if n else 1)
PY
	"$FLIGHTREC" report --sort pid,dso,sym "$T/nomap.frec" >"$T/n4.txt" 2>"$T/n4.err"; rc=$?
	[ "$rc" -eq 1 ] && grep -q 'BLOB PERFMAP.*checksum' "$T/n4.err" ||
		fail "node, PERFMAP damaged: report exited $rc: $(cat "$T/n4.err")"
	grep -q '^# [0-9]* frames in anonymous memory (JIT code) not named' "$T/n4.txt" ||
		fail "node, no map anywhere: no note of unnamed JIT frames: $(tail -5 "$T/n4.txt")"
	pass "node, PERFMAP damaged and no map: said ($(head -1 "$T/n4.err" | cut -c1-60)...), unnamed JIT frames counted"
	mv "$T/perf-$pid.map.away" "/tmp/perf-$pid.map"
	"$FLIGHTREC" archive --cache "$T/cache" -o "$T/objs.tar" "$T/nomap.frec" 2>"$T/archive.err"; rc=$?
	[ "$rc" -le 1 ] || fail "archive exited $rc: $(cat "$T/archive.err")"
	mkdir -p "$T/objs" && tar -C "$T/objs" -xf "$T/objs.tar" || fail "tar -x failed"
	[ -f "$T/objs/jit/perf-$pid.map" ] ||
		fail "the tarball lacks jit/perf-$pid.map: $(tar -tf "$T/objs.tar")"
	mv "/tmp/perf-$pid.map" "$T/perf-$pid.map.away"
	"$FLIGHTREC" report --sort pid,dso,sym --symdir "$T/objs" "$T/nomap.frec" >"$T/n2.txt" 2>/dev/null
	got=$(count "$T/n2.txt" hotLoopAlpha)
	[ "$((got * 100))" -ge "$((with * 95))" ] ||
		fail "node, map removed, PERFMAP damaged, --symdir: $got of $with samples"
	pass "node, map removed, PERFMAP damaged: archive + --symdir name $got of $with samples"
	mv "$T/perf-$pid.map.away" "/tmp/perf-$pid.map"
	rm -f "/tmp/perf-$pid.map"

	# --perf-prof: a jitdump in the current directory ($T), mapped as its
	# marker; 2.5 s, so that the recorder reads it while node runs
	mkdir -p "$T/dump"
	(cd "$T" && record_fg -q -F 999 -g -e cpu-clock -m 4M -o "$T/dump" -- node --perf-prof "$T/hot.js" 2500 >/dev/null) ||
		fail "record node --perf-prof exited $?: $(cat "$T/record.err")"
	set -- "$T"/dump/*.frec
	f=$1
	set -- "$T"/jit-*.dump
	[ -f "$1" ] || fail "node --perf-prof wrote no jit-PID.dump in $T"
	rm -f "$T"/jit-*.dump
	"$FLIGHTREC" report --sort pid,dso,sym "$f" >"$T/d1.txt" || fail "report exited $?"
	pid=$(grep -v '^#' "$T/d1.txt" | grep -F 'hotLoopAlpha' | awk '{ print $3; exit }')
	[ -n "$pid" ] || fail "node --perf-prof, dump removed: hotLoopAlpha not named: $(head -30 "$T/d1.txt")"
	"$HELPERS/frblobs" "$f" | grep -q "^perfmap pid=$pid " || fail "no PERFMAP blob of pid $pid"
	grep -qE "  \[JIT\] tid $pid +\[\.\] JS:[*~^]?hotLoopAlpha " "$T/d1.txt" ||
		fail "node --perf-prof: hotLoopAlpha is not a function of [JIT] tid $pid: $(grep hotLoop "$T/d1.txt")"
	named=$(count "$T/d1.txt" hotLoopAlpha)
	# every sample of the function is named or in an unnamed JIT row (anon)
	unnamed=$(grep -v '^#' "$T/d1.txt" | awk -v p="$pid" '$3 == p && $4 == "anon" { n += $2 } END { print n + 0 }')
	[ "$named" -ge 30 ] || fail "node --perf-prof: only $named samples named hotLoopAlpha"
	[ "$((named * 100))" -ge "$(((named + unnamed) * 95))" ] ||
		fail "node --perf-prof, dump removed: hotLoopAlpha named in $named samples, $unnamed JIT samples unnamed"
	pass "node --perf-prof, dump removed: hotLoopAlpha named in $named samples from the file's copy ($unnamed JIT samples unnamed)"
else
	echo "note: no node here (apt-get install nodejs): node part skipped"
fi

# 2. the JVM: the map written at exit, after the last time the recorder
# looked while it ran; read by the recorder from its own /tmp once the JVM is
# gone (the same mount namespace), then removed before the report
if ! command -v java >/dev/null 2>&1; then
	echo "note: no java here (apt-get install openjdk-17-jdk-headless): JVM part skipped"
elif ! command -v javac >/dev/null 2>&1; then
	echo "note: no javac here (a JRE only; apt-get install openjdk-17-jdk-headless): JVM part skipped"
else
	cat >"$T/Hot.java" <<'JAVA'
public class Hot {
    static long hotLoopBeta(long n) { long s = 0; for (long i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; }
    public static void main(String[] a) {
        long end = System.currentTimeMillis() + Long.parseLong(a[0]); long x = 0;
        while (System.currentTimeMillis() < end) x += hotLoopBeta(100000);
        System.out.println(x);
    }
}
JAVA
	javac -d "$T" "$T/Hot.java" 2>"$T/javac.err" || fail "javac exited $?: $(cat "$T/javac.err")"
	mkdir -p "$T/jvm"
	record_fg -q -F 999 -g -e cpu-clock -m 8M -o "$T/jvm" -- java -XX:+UnlockDiagnosticVMOptions \
		-XX:+DumpPerfMapAtExit -cp "$T" Hot 2000 >/dev/null ||
		fail "record java exited $?: $(cat "$T/record.err")"
	set -- "$T"/jvm/*.frec
	f=$1
	jpid=$("$HELPERS/frblobs" "$f" | sed -n 's/^perfmap pid=\([0-9]*\) .*/\1/p' | head -1)
	[ -n "$jpid" ] || fail "jvm: the recorder wrote no PERFMAP blob: $("$HELPERS/frblobs" "$f" | grep -v '^trigger')"
	"$FLIGHTREC" report --sort pid,dso,sym "$f" >"$T/j1.txt" || fail "report exited $?"
	with=$(count "$T/j1.txt" Hot.hotLoopBeta)
	mv "/tmp/perf-$jpid.map" "$T/perf-$jpid.map.away" || fail "no /tmp/perf-$jpid.map"
	"$FLIGHTREC" report --sort pid,dso,sym "$f" >"$T/j.txt" || fail "report (map removed) exited $?"
	rm -f "$T/perf-$jpid.map.away"
	line=$(grep -v '^#' "$T/j.txt" | grep -F 'Hot.hotLoopBeta' | head -1)
	echo "$line" | grep -qE "  \[JIT\] tid $jpid +\[\.\] .*Hot\.hotLoopBeta" ||
		fail "jvm, map removed: Hot.hotLoopBeta not named under [JIT] tid $jpid: $(head -20 "$T/j.txt")"
	got=$(count "$T/j.txt" Hot.hotLoopBeta)
	[ "$with" -ge 30 ] && [ "$((got * 100))" -ge "$((with * 95))" ] ||
		fail "jvm, map removed: the file's copy names $got of $with samples"
	pass "jvm -XX:+DumpPerfMapAtExit, map removed: Hot.hotLoopBeta named in $got of $with samples from the file's copy"
fi
exit 0
