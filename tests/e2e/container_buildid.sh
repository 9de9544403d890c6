#!/bin/sh
# tests/e2e/container_buildid.sh: a process in another mount namespace (a
# container) maps a file that the recorder's namespace has under the same
# path with other contents. Its build id in the file's process table must be
# the one of the file the process really maps (read through /proc/PID/root).
. "$TESTLIB"
command -v unshare >/dev/null && command -v readelf >/dev/null ||
	{ echo "SKIP: unshare or readelf missing" >&2; exit 77; }
mkdir -p "$T/ns" "$T/out"
cp "$HELPERS/cpuburn_fp" "$T/ns/prog"
want=$(readelf -n "$HELPERS/cpuburn_nofp" | awk '/Build ID/ {print $3}')
other=$(readelf -n "$T/ns/prog" | awk '/Build ID/ {print $3}')
[ -n "$want" ] && [ "$want" != "$other" ] || fail "fixtures: build ids '$want' '$other'"
unshare -m sh -c "mount --bind '$HELPERS/cpuburn_nofp' '$T/ns/prog' && exec '$T/ns/prog' 300" &
cpid=$!
BGPIDS="$BGPIDS $cpid"
sleep 0.5
kill -0 $cpid 2>/dev/null || { echo "SKIP: unshare -m refused here" >&2; exit 77; }
record_bg ct -p $cpid -e cpu-clock -F 200 --backward -o "$T/out" --no-final-snapshot
f=$("$FLIGHTREC" snapshot --name ct) || fail "snapshot exited $?"
"$HELPERS/frblobs" -i "$f" >"$T/b.txt" || fail "frblobs failed"
got=$(awk -v p=$cpid -v path="$T/ns/prog" '$1=="map" && $2==p && $5==path {sub(/^id=/,"",$7); print $7; exit}' "$T/b.txt")
[ "$got" = "$want" ] || fail "build id of $T/ns/prog in pid $cpid: '$got', expected the namespace's '$want' (the recorder's file has '$other')"
pass "the containerized process's mapping has its own file's build id"
