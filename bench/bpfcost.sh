#!/bin/bash
# bench/bpfcost.sh: what a recorder configuration costs a real server,
# counted rather than timed: PostgreSQL + pgbench -c 4 -j 2 TPC-B for 10 s
# (a throwaway cluster, as bench/pg.sh) under each configuration given, with
# kernel.bpf_stats_enabled=1: each of flightrec's BPF programs' runs per
# second and ns per run (bpf_stats's own clock reads included), their sum in
# % of all CPUs, and the recorder's CPU time (/proc/PID/stat). Root.
#   bench/bpfcost.sh "RECORD OPTIONS" ["RECORD OPTIONS" ...]
#   e.g. bench/bpfcost.sh "-e cpu-clock -F 99 -g --off-cpu-thresh 10ms --keep 2m"
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/pglib.sh"
pg_find bpfcost.sh
pg_tmp acct
trap pg_stop EXIT
pg_start
sysctl -qw kernel.bpf_stats_enabled=1
for cfg in "$@"; do
  "$top/src/flightrec" record -q -a $cfg -o $tmp/rec --name acct & p=$!; sleep 2
  bpftool prog show -j > $tmp/b0.json
  t0=$(awk '{print $14+$15}' /proc/$p/stat); s0=$(date +%s.%N)
  tps=$(pgb -c 4 -j 2 -T 10 2>/dev/null | awk '/^tps/{print $3}')
  s1=$(date +%s.%N); t1=$(awk '{print $14+$15}' /proc/$p/stat)
  bpftool prog show -j > $tmp/b1.json
  kill -INT $p; wait $p; rm -f $tmp/rec/*
  python3 - "$tmp/b0.json" "$tmp/b1.json" "$s0" "$s1" "$t0" "$t1" "$tps" "$cfg" <<'PY'
import json,sys,os
ncpu=os.cpu_count()
b0={p['id']:p for p in json.load(open(sys.argv[1]))}; b1=json.load(open(sys.argv[2]))
wall=float(sys.argv[4])-float(sys.argv[3]); tot=0
out=[]
for p in b1:
    if not p.get('name','').startswith('fr_'): continue
    a=b0.get(p['id'],{}); ns=p.get('run_time_ns',0)-a.get('run_time_ns',0); n=p.get('run_cnt',0)-a.get('run_cnt',0)
    tot+=ns; out.append("%s %d/s %.0fns" % (p['name'], n/wall, ns/n if n else 0))
cpu=(int(sys.argv[6])-int(sys.argv[5]))/100.0
print("%s: tps %s; BPF %.2f%% of the CPUs (%s); recorder %.2f%% of the CPUs" % (sys.argv[8], sys.argv[7], tot/wall/(ncpu*1e9)*100, ", ".join(out), cpu/wall/ncpu*100))
PY
done
sysctl -qw kernel.bpf_stats_enabled=0
