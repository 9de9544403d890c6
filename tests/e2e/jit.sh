#!/bin/sh
# tests/e2e/jit.sh: JIT code named from perf maps with real runtimes: node
# --perf-basic-prof (its function under "[JIT] tid PID", from the local
# /tmp/perf-PID.map; then with the map removed: from the file's PERFMAP blob
# where the recorder wrote one, else from `flightrec archive -o X.tar` +
# `report --symdir`, named in >= 95% of the samples it had), and
# a JVM (-XX:+DumpPerfMapAtExit). Unnamed JIT frames are counted in a note.
. "$TESTLIB"

# the named samples of a report line matching $2 in the report $1
count() { grep -v '^#' "$1" | grep -F -- "$2" | awk '{ n += $2 } END { print n + 0 }'; }

# 1. node
if command -v node >/dev/null 2>&1; then
	cat >"$T/hot.js" <<'JS'
function hotLoopAlpha(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; }
const end = Date.now() + 1500; let x = 0;
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
	if "$HELPERS/frblobs" "$f" | grep -q "^perfmap pid=$pid "; then
		[ "$((got * 100))" -ge "$((with * 95))" ] ||
			fail "node, map removed: the file's PERFMAP blob names $got of $with samples"
		pass "node, map removed: the file's copy names $got of $with samples"
	else
		echo "note: the recorder wrote no PERFMAP blob (not wired yet): the map-removed check from the file's copy is not run"
		grep -q '^# [0-9]* frames in anonymous memory (JIT code) not named' "$T/n3.txt" ||
			fail "node, map removed: no note of unnamed JIT frames: $(tail -5 "$T/n3.txt")"
		pass "node, map removed, no copy in the file: the unnamed JIT frames are counted in a note"
		# archive carries the local map: named from --symdir with /tmp's map gone
		mv "$T/perf-$pid.map.away" "/tmp/perf-$pid.map"
		"$FLIGHTREC" archive --cache "$T/cache" -o "$T/objs.tar" "$f" 2>"$T/archive.err" ||
			fail "archive exited $?: $(cat "$T/archive.err")"
		mkdir -p "$T/objs" && tar -C "$T/objs" -xf "$T/objs.tar" || fail "tar -x failed"
		[ -f "$T/objs/jit/perf-$pid.map" ] ||
			fail "the tarball lacks jit/perf-$pid.map: $(tar -tf "$T/objs.tar")"
		mv "/tmp/perf-$pid.map" "$T/perf-$pid.map.away"
		"$FLIGHTREC" report --sort pid,dso,sym --symdir "$T/objs" "$f" >"$T/n2.txt" ||
			fail "report --symdir exited $?"
		got=$(count "$T/n2.txt" hotLoopAlpha)
		[ "$((got * 100))" -ge "$((with * 95))" ] ||
			fail "node, map removed, --symdir: $got of $with samples"
		pass "node, map removed: archive + --symdir name $got of $with samples"
	fi
	mv "$T/perf-$pid.map.away" "/tmp/perf-$pid.map"
	rm -f "/tmp/perf-$pid.map"
else
	echo "note: no node here (apt-get install nodejs): node part skipped"
fi

# 2. the JVM: the map written at exit
if command -v java >/dev/null 2>&1; then
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
	mkdir -p "$T/jvm"
	record_fg -q -F 999 -g -e cpu-clock -m 8M -o "$T/jvm" -- java -XX:+UnlockDiagnosticVMOptions \
		-XX:+DumpPerfMapAtExit "$T/Hot.java" 2000 >/dev/null ||
		fail "record java exited $?: $(cat "$T/record.err")"
	set -- "$T"/jvm/*.frec
	"$FLIGHTREC" report --sort pid,dso,sym "$1" >"$T/j.txt" || fail "report exited $?"
	line=$(grep -v '^#' "$T/j.txt" | grep -F 'Hot.hotLoopBeta' | head -1)
	echo "$line" | grep -qE '  \[JIT\] tid [0-9]+ +\[\.\] .*Hot\.hotLoopBeta' ||
		fail "jvm: Hot.hotLoopBeta not named under [JIT]: $(head -20 "$T/j.txt")"
	jpid=$(echo "$line" | awk '{ print $3 }')
	rm -f "/tmp/perf-$jpid.map"
	pass "jvm -XX:+DumpPerfMapAtExit: $(echo "$line" | sed 's/  */ /g')"
else
	echo "note: no java here (apt-get install openjdk-17-jdk-headless): JVM part skipped"
fi
exit 0
