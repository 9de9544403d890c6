#!/bin/sh
# tests/e2e/recipes.sh: the README's recipes, taken from README.md as a user
# copies them and run: ./server is a test workload, /var/tmp/fr a temp dir,
# the profile store a local HTTP receiver (pprof) or OTLP receiver (push),
# the service of the slow-call recipe a workload in a fresh cgroup.
# The service recipe is run by service.sh (systemd may not run here).
. "$TESTLIB"
F=$FLIGHTREC
SRC=$(cd "$(dirname "$TESTLIB")/../.." && pwd)
cd "$T" || fail "cd"
# the indented command lines of the README's "Recipes" section, joined over \
awk '/^## Recipes/ {on=1; next} /^## / {on=0}
	on && /^    [^ ]/ {sub(/^ +/, ""); line = $0; if (line ~ /\\$/) {sub(/ *\\$/, "", line); cont = line; next} }
	on && /^        / && cont != "" {sub(/^ +/, ""); cont = cont " " $0; if (cont ~ /\\$/) {sub(/ *\\$/, "", cont); next} line = cont; cont = ""}
	on && line != "" {sub(/ +#.*$/, "", line); print line; line = ""}' "$SRC/README.md" >recipes.txt
[ "$(grep -c . recipes.txt)" -ge 9 ] || fail "found only $(grep -c . recipes.txt) recipe lines"
subst() {
	sed -e "s#^flightrec #\"$F\" #" -e "s#/var/tmp/fr#$T/fr#g" \
	    -e "s#\./server --port 8080#$HELPERS/cpuburn_fp 40#" -e "s#http://pyroscope:4040#http://127.0.0.1:$PORT#"
}
run() {   # run one README line (substituted); must exit 0
	cmd=$(printf '%s\n' "$1" | subst)
	sh -c "$cmd" >"$T/out.txt" 2>"$T/err.txt" || fail "recipe line '$1' exited $?: $(head -3 "$T/err.txt")"
	pass "$1"
}
PORT=0

# profile one command
rm -rf fr; mkdir fr
grep -E '^flightrec (record -F 999|report -g -d|report --flamegraph)' recipes.txt >r1.txt
[ "$(wc -l <r1.txt)" -eq 3 ] || fail "profile recipe: $(cat r1.txt)"
while IFS= read -r l; do run "$l"; done <r1.txt
grep -q hot_a flame.svg || fail "the flame graph lacks hot_a"

# ship to a profile store: a local receiver stands for Pyroscope
command -v curl >/dev/null || { echo "SKIP: curl missing" >&2; exit 77; }
PY=/usr/bin/python3; [ -x $PY ] || PY=python3
$PY - "$T/port" "$T/posted" <<'PYEOF' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get('Content-Length', 0))
        open(sys.argv[2], 'wb').write(self.rfile.read(n))
        open(sys.argv[2] + '.path', 'w').write(self.path)
        self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
open(sys.argv[1], 'w').write(str(s.server_port))
s.handle_request()
PYEOF
BGPIDS="$BGPIDS $!"
for _ in $(seq 1 50); do [ -s "$T/port" ] && break; sleep 0.1; done
PORT=$(cat "$T/port")
grep -E '^(flightrec report --format=pprof|curl )' recipes.txt >r2.txt
[ "$(wc -l <r2.txt)" -eq 2 ] || fail "store recipe: $(cat r2.txt)"
while IFS= read -r l; do run "$l"; done <r2.txt
cmp -s cpu.pb.gz posted || fail "the store did not receive the pprof file"
grep -q 'format=pprof' posted.path || fail "posted to $(cat posted.path)"
pass "the profile store received $(stat -c %s posted) bytes of pprof"
# ... or as OTLP, to a receiver of our own (tests/helpers/otlp_sink.py)
$PY "$SRC/tests/helpers/otlp_sink.py" "$T/sink" &
BGPIDS="$BGPIDS $!"
mkdir -p "$T/sink"
for _ in $(seq 1 100); do [ -s "$T/sink/port" ] && break; sleep 0.1; done
PORT=$(cat "$T/sink/port")
line=$(grep -E '^flightrec push ' recipes.txt)
[ -n "$line" ] || fail "no push recipe"
run "$line"
[ "$(awk '$2 == 200' "$T/sink/log" | wc -l)" -eq "$(ls fr/*.frec | wc -l)" ] ||
	fail "the OTLP receiver got $(cat "$T/sink/log") for $(ls fr/*.frec | wc -l) files"
pass "the OTLP receiver took every file of the directory"

# compare with perf (perf is not flightrec's: its own failure only skips this one)
grep -E '^(perf |flightrec record -q -g|flightrec report --sort sym)' recipes.txt >r3.txt
[ "$(wc -l <r3.txt)" -eq 4 ] || fail "perf recipe: $(cat r3.txt)"
rm -rf fr; mkdir fr
if command -v perf >/dev/null && perf record -q -e cpu-clock -o /dev/null true 2>/dev/null; then
	i=0
	while IFS= read -r l; do
		i=$((i + 1))
		case "$l" in perf*)
			cmd=$(printf '%s\n' "$l" | subst)
			sh -c "$cmd" >"$T/perf$i.txt" 2>/dev/null || { echo "perf itself failed: $l" >&2; continue; } ;;
		*) run "$l"; cp "$T/out.txt" "$T/fr$i.txt" ;;
		esac
	done <r3.txt
	grep -q hot_a "$T/fr4.txt" || fail "flightrec's top functions lack hot_a: $(cat "$T/fr4.txt")"
	pass "perf and flightrec side by side: $(head -1 "$T/fr4.txt" | tr -s ' ')"
else
	echo "perf cannot record here: the comparison recipe's flightrec half only" >&2
	sed -n 3,4p r3.txt | while IFS= read -r l; do run "$l"; done
fi

# snapshot on an event: an error exit triggers it
line=$(grep -E '^flightrec record -a -e sched:sched_switch' recipes.txt)
[ -n "$line" ] || fail "no trigger recipe"
rm -rf fr; mkdir fr
cmd=$(printf '%s\n' "$line" | subst)
sh -c "exec $cmd --name trig" 2>"$T/trig.err" &
rp=$!; BGPIDS="$BGPIDS $rp"
for _ in $(seq 1 100); do [ -S "$FLIGHTREC_RUN_DIR/trig.sock" ] && break; sleep 0.1; done
[ -S "$FLIGHTREC_RUN_DIR/trig.sock" ] || fail "the trigger recipe's recorder did not start: $(cat "$T/trig.err")"
sh -c 'exit 3'
for _ in $(seq 1 50); do ls fr/*.frec >/dev/null 2>&1 && break; sleep 0.1; done
f=$(ls fr/*.frec 2>/dev/null | head -1)
[ -n "$f" ] || fail "an error exit wrote no snapshot: $(cat "$T/trig.err")"
"$F" dump "$f" | grep -q '^# trigger: event' || fail "the snapshot is not marked as the event's"
kill -INT $rp; wait $rp
pass "trigger recipe: an error exit wrote $(basename "$f")"

# a slow call and who kept it waiting: the service is tests/helpers/wakers in
# a fresh cgroup (its read_pipe waits ~20 ms for write_late's nap), fsync
# over 50 ms is a read over 15 ms
root=$(awk '$3=="cgroup2" {print $2; exit}' /proc/self/mounts)
[ -n "$root" ] || { echo "SKIP: the slow-call recipe: cgroup v2 is not mounted" >&2; exit 0; }
grep -E '^flightrec (record -G|report -d /var/tmp/fr \||report --critical-path)' recipes.txt >r4.txt
[ "$(wc -l <r4.txt)" -eq 3 ] || fail "slow-call recipe: $(cat r4.txt)"
cg="frrecipe-$$"
mkdir "$root/$cg" || fail "mkdir $root/$cg"
trap 'cleanup; rmdir "$root/$cg" 2>/dev/null' EXIT
rm -rf fr; mkdir fr
slow() { subst | sed -e "s#system.slice/postgresql.service#$cg#" -e 's#syscall:fsync,50ms#syscall:read,15ms#'; }
cmd=$(sed -n 1p r4.txt | slow)
sh -c "exec $cmd --name slow" 2>"$T/slow.err" &
rp=$!; BGPIDS="$BGPIDS $rp"
for _ in $(seq 1 100); do [ -S "$FLIGHTREC_RUN_DIR/slow.sock" ] && break; sleep 0.1; done
[ -S "$FLIGHTREC_RUN_DIR/slow.sock" ] || fail "the slow-call recipe's recorder did not start: $(cat "$T/slow.err")"
sh -c "echo \$\$ >'$root/$cg/cgroup.procs' && exec '$HELPERS/wakers' 10 30 20" >/dev/null ||
	fail "the workload in $cg exited $?"
for _ in $(seq 1 50); do grep -q 'snapshot (latency) written' "$T/slow.err" && break; sleep 0.1; done
cmd=$(sed -n 2p r4.txt | slow)
sh -c "$cmd" >"$T/trig.txt" || fail "'$(sed -n 2p r4.txt)' exited $?: $(cat "$T/slow.err")"
tid=$(sed -n 's/^# trigger: latency: thread \([0-9]*\) .*/\1/p' "$T/trig.txt")
[ -n "$tid" ] || fail "the report's header names no slow call: $(cat "$T/trig.txt")"
cmd=$(sed -n 3p r4.txt | slow | sed "s#--critical-path TID#--critical-path $tid#")
sh -c "$cmd" >"$T/cp.txt" 2>"$T/cp.err" || fail "'$(sed -n 3p r4.txt)' (TID $tid) exited $?: $(cat "$T/cp.err")"
grep -q "woken by [0-9]* wakers in .*\(write_late\|hold_lock\)" "$T/cp.txt" ||
	fail "the critical path names no waker: $(head -20 "$T/cp.txt")"
kill -INT $rp; wait $rp
pass "slow-call recipe: thread $tid's slow read, its critical path through the waker: $(grep -m1 -o 'woken by [0-9]* wakers in [^<]*<- [a-z_]*' "$T/cp.txt")"
