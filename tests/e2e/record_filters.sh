#!/bin/sh
# tests/e2e/record_filters.sh: record-side selection: --filter keeps only the
# matching tracepoint records (count == 7 in, count == 1 out) and a filter the
# kernel rejects is refused in one line; the recorder's own reads (backward)
# and writes (forward, --keep) are left out of a system-wide recorder by
# default and kept with --include-self; -G
# records a process in a fresh cgroup and nothing outside it.
. "$TESTLIB"

mkdir -p "$T/out" "$T/self" "$T/cg"
expect_error 64 "--filter 'count ==' refused by the kernel" \
	"$FLIGHTREC" record -e syscalls:sys_enter_read --filter 'count ==' -o "$T/out"
expect_error 64 "tracepoints only" "$FLIGHTREC" record -e cpu-clock --filter 'count == 7' -o "$T/out"
expect_error 64 "needs a preceding -e" "$FLIGHTREC" record --filter 'count == 7' -e cpu-clock
expect_error 64 "system-wide" "$FLIGHTREC" record -G x -p 1 -e cpu-clock

# reads by PID in FILE with count COUNT (hex in dump: count=0x00000007)
reads() {
	"$FLIGHTREC" dump "$1" | awk -v p="$2" -v c="$3" '$4=="SAMPLE" {split($3,a,"/");
		if (a[1]==p && (c=="" || $NF==sprintf("count=0x%08x", c))) n++} END{print n+0}'
}

# --filter
record_bg flt -e syscalls:sys_enter_read --filter 'count == 7' -m 256 -o "$T/out" \
	--no-final-snapshot
"$HELPERS/read_loop" 200 0 7 & h7=$!; wait $h7 || fail "read_loop 7"
"$HELPERS/read_loop" 200 0 1 & h1=$!; wait $h1 || fail "read_loop 1"
f=$("$FLIGHTREC" snapshot --name flt) || fail "snapshot exited $?"
n7=$(reads "$f" $h7 7); n1=$(reads "$f" $h1 "")
[ "$n7" -ge 200 ] || fail "--filter 'count == 7': $n7 reads of 7 bytes, expected >= 200"
[ "$n1" -eq 0 ] || fail "--filter 'count == 7': $n1 reads of 1 byte kept"
other=$("$FLIGHTREC" dump "$f" | awk '$4=="SAMPLE" && $NF!="count=0x00000007"' | wc -l)
[ "$other" -eq 0 ] || fail "--filter 'count == 7': $other other records kept"
pass "--filter 'count == 7': $n7 matching reads, none of the 200 1-byte reads"
kill -TERM "$RECPID"; wait "$RECPID"; BGPIDS=""

# the recorder's own reads (its signalfd, on each SIGUSR2): absent by default
for mode in default include-self; do
	flag=""; [ $mode = include-self ] && flag=--include-self
	rm -f "$T/self"/*
	record_bg self -e syscalls:sys_enter_read $flag -m 256 -o "$T/self" --no-final-snapshot
	for _ in 1 2 3; do kill -USR2 "$RECPID"; sleep 0.3; done
	kill -TERM "$RECPID"; wait "$RECPID"; BGPIDS=""
	n=0
	for f in "$T/self"/*.frec; do
		[ -f "$f" ] || fail "$mode: no snapshot written"
		n=$((n + $(reads "$f" "$RECPID" "")))
	done
	if [ $mode = default ]; then
		[ "$n" -eq 0 ] || fail "default: $n reads by the recorder itself (pid $RECPID) recorded"
	else
		[ "$n" -gt 0 ] || fail "--include-self: no read by the recorder itself (pid $RECPID)"
	fi
	pass "$mode: $n reads by the recorder's own threads"
done

# forward and --keep leave out the recorder's own writes (the readers' chunk
# writes, the snapshots' file writes) the same way: one file per mode
for mode in forward keep; do
	for flag in "" --include-self; do
		d="$T/self-$mode${flag:+-i}"
		mkdir -p "$d"
		if [ $mode = forward ]; then mopt=--forward; else mopt="--keep 30s"; fi
		# shellcheck disable=SC2086
		record_bg "s$mode" -e syscalls:sys_enter_write $mopt $flag -m 256 -o "$d" \
			--no-final-snapshot
		sleep 1.5   # a forward reader flushes its chunk within 1 s
		for _ in 1 2 3; do kill -USR2 "$RECPID"; sleep 0.3; done
		kill -TERM "$RECPID"; wait "$RECPID"; BGPIDS=""
		n=0; nf=0
		for f in "$d"/*.frec; do
			[ -f "$f" ] || continue
			nf=$((nf + 1))
			n=$((n + $(reads "$f" "$RECPID" "")))
		done
		[ "$nf" -gt 0 ] || fail "$mode: no file written"
		if [ -z "$flag" ]; then
			[ "$n" -eq 0 ] || fail "$mode: $n writes by the recorder itself (pid $RECPID) recorded"
		else
			[ "$n" -gt 0 ] || fail "$mode --include-self: no write by the recorder itself (pid $RECPID)"
		fi
		pass "$mode ${flag:-default}: $n writes by the recorder's own threads in $nf file(s)"
	done
done

# -G: a fresh cgroup v2 with one reader in it, another reader outside
root=$(awk '$3=="cgroup2" {print $2; exit}' /proc/self/mounts)
[ -n "$root" ] || { echo "SKIP: cgroup v2 is not mounted"; exit 77; }
cg="frtest-$$"
mkdir "$root/$cg" || fail "mkdir $root/$cg"
trap 'cleanup; rmdir "$root/$cg" 2>/dev/null' EXIT
expect_error 64 "no such cgroup" "$FLIGHTREC" record -G "frtest-none-$$" -e syscalls:sys_enter_read -o "$T/cg"
mkfifo "$T/go"
(read -r _ <"$T/go"; exec "$HELPERS/read_loop" 300 0 3) &
inside=$!
echo "$inside" >"$root/$cg/cgroup.procs" || fail "cannot move $inside into $root/$cg"
record_bg cg -G "$cg" -e syscalls:sys_enter_read -m 256 -o "$T/cg" --no-final-snapshot
echo go >"$T/go"
"$HELPERS/read_loop" 300 0 3 & outside=$!
wait "$outside"; wait "$inside" || fail "read_loop in the cgroup"
f=$("$FLIGHTREC" snapshot --name cg) || fail "snapshot exited $?"
nin=$(reads "$f" "$inside" 3); nout=$(reads "$f" "$outside" "")
strangers=$("$FLIGHTREC" dump "$f" | awk -v p="$inside" '$4=="SAMPLE" {split($3,a,"/"); if (a[1]!=p) n++} END{print n+0}')
[ "$nin" -ge 300 ] || fail "-G: $nin reads by the process in the cgroup, expected >= 300"
[ "$nout" -eq 0 ] || fail "-G: $nout reads by the process outside the cgroup"
[ "$strangers" -eq 0 ] || fail "-G: $strangers records of processes outside the cgroup"
pass "-G $cg: $nin reads inside, $nout outside, $strangers records of other processes"
exit 0
