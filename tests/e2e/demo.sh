#!/bin/sh
# tests/e2e/demo.sh: the README's demo: a system-wide backward recorder of
# syscalls:sys_enter_prctl, a bundled workload, a snapshot, and what it holds.
# Usage: demo.sh BUILDDIR
set -eu
B=${1:-.}
F="$B/src/flightrec"
D=$(mktemp -d /tmp/flightrec-demo.XXXXXX)
export FLIGHTREC_RUN_DIR="$D/run"
trap 'kill $rec 2>/dev/null; wait 2>/dev/null; rm -rf "$D/run"' EXIT
echo "== flightrec record -a -e syscalls:sys_enter_prctl --backward -m 16 -o $D (in the background)"
"$F" record -a -e syscalls:sys_enter_prctl --backward -m 16 -o "$D" --no-final-snapshot &
rec=$!
while [ ! -S "$D/run/default.sock" ]; do kill -0 $rec || exit 1; sleep 0.1; done
echo "== workload: 5000 x prctl(PR_SET_NAME) (the ring keeps only the newest)"
"$B/tests/helpers/prctl_loop" 5000
echo "== flightrec snapshot"
file=$("$F" snapshot)
echo "$file"
echo "== flightrec report --sort pid -i $file"
"$F" report --sort pid -i "$file"
echo "== flightrec dump $file   (the newest prctl records: each call is a sample and a COMM)"
"$F" dump --no-header "$file" | grep -E ' (SAMPLE|COMM) +prctl_' | tail -n 8
echo "== the snapshot is in $D"
