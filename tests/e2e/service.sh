#!/bin/sh
# tests/e2e/service.sh: flightrec.service as systemd would run it: the
# EnvironmentFile read (KEY=VALUE lines), ExecStart expanded ($VAR split at
# whitespace, ${VAR} one argument), run as written (only the binary is the
# build's, and the copy of the settings points FLIGHTREC_OUTPUT at a temp
# dir); ExecReload writes a snapshot that dump reads; SIGTERM stops it. A
# malformed settings file gives one line and no recorder.
. "$TESTLIB"

unit=${SERVICE_UNIT:-$DATADIR/flightrec.service}
defaults=${SERVICE_DEFAULTS:-$DATADIR/flightrec.default}
[ -f "$unit" ] || fail "no unit at $unit (make builds data/flightrec.service)"
[ -f "$defaults" ] || fail "no settings file at $defaults"
for want in 'ExecReload=/bin/kill -USR2 $MAINPID' 'Restart=on-failure' 'StateDirectory=flightrec' \
	'EnvironmentFile=' 'CapabilityBoundingSet=.*CAP_PERFMON'; do
	grep -q "^$want" "$unit" || fail "$unit has no line $want"
done

# read_env FILE: ENV_KEY=VALUE for each KEY=VALUE line, as systemd reads an
# EnvironmentFile: blank lines and #/; comments skipped, spaces around the
# value dropped, one pair of surrounding quotes removed; a line without
# KEY= is ignored (systemd warns), so its variable stays unset.
ENVKEYS=""
read_env() {
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in ''|'#'*|';'*) continue ;; esac
		key=${line%%=*}
		[ "$key" != "$line" ] || { echo "warning: ignoring '$line'" >&2; continue; }
		key=$(printf '%s' "$key" | sed 's/^[ \t]*//; s/[ \t]*$//')
		case "$key" in ''|[0-9]*|*[!A-Za-z0-9_]*) echo "warning: ignoring '$line'" >&2; continue ;; esac
		val=$(printf '%s' "${line#*=}" | sed 's/^[ \t]*//; s/[ \t]*$//')
		case "$val" in \"*\"|\'*\') val=${val#?}; val=${val%?} ;; esac
		eval "ENV_$key=\$val"
		ENVKEYS="$ENVKEYS $key"
	done <"$1"
}
getvar() { eval "printf '%s' \"\${ENV_$1-}\""; }
unset_env() { for k in $ENVKEYS; do unset "ENV_$k"; done; ENVKEYS=""; }

# expand KEY= from the unit: sets "$@" to the expanded argv. A word that is
# exactly $VAR becomes the value's words (none when empty); ${VAR} anywhere
# in a word is replaced by the value as one argument.
expand_line() {
	line=$(sed -n "s/^$1=//p" "$unit" | head -n 1)
	[ -n "$line" ] || fail "$unit has no $1="
	set -f
	ARGS=""
	n=0
	for w in $line; do
		case "$w" in
		\$[A-Za-z_]*)
			name=${w#\$}
			case "$name" in *[!A-Za-z0-9_]*) ;; *)
				for v in $(getvar "$name"); do
					n=$((n + 1)); eval "A$n=\$v"
				done
				continue ;;
			esac ;;
		esac
		while :; do
			case "$w" in
			*'${'[A-Za-z_]*'}'*)
				pre=${w%%\$\{*}; rest=${w#*\$\{}; name=${rest%%\}*}; post=${rest#*\}}
				w="$pre$(getvar "$name")$post" ;;
			*) break ;;
			esac
		done
		n=$((n + 1)); eval "A$n=\$w"
	done
	set +f
	NARGS=$n
}
# run the expanded line: "$A1" replaced by the build's binary when it is
# flightrec; "run_expanded exec" replaces the (sub)shell, as systemd's MAINPID
run_expanded() {
	how=${1:-}
	set --
	i=1
	while [ $i -le "$NARGS" ]; do eval "set -- \"\$@\" \"\$A$i\""; i=$((i + 1)); done
	case "$1" in */flightrec) shift; set -- "$FLIGHTREC" "$@" ;; esac
	if [ "$how" = exec ]; then exec "$@"; fi
	"$@"
}

mkdir -p "$T/state" "$FLIGHTREC_RUN_DIR"
chmod 700 "$FLIGHTREC_RUN_DIR"
# the settings as shipped, output pointed at the temp dir
sed "s|^FLIGHTREC_OUTPUT=.*|FLIGHTREC_OUTPUT=$T/state|" "$defaults" >"$T/default"
read_env "$T/default"
[ "$(getvar FLIGHTREC_NAME)" = default ] || fail "FLIGHTREC_NAME is not 'default'"
expand_line ExecStart
echo "ExecStart: $(i=1; while [ $i -le "$NARGS" ]; do eval "printf '%s ' \"\$A$i\""; i=$((i + 1)); done)"
run_expanded exec 2>"$T/service.err" &
MAINPID=$!
BGPIDS="$MAINPID"
for _ in $(seq 1 100); do
	[ -S "$FLIGHTREC_RUN_DIR/default.sock" ] && break
	if ! kill -0 "$MAINPID" 2>/dev/null; then
		wait "$MAINPID"; rc=$?
		[ "$rc" -eq 3 ] && { echo "SKIP: $(cat "$T/service.err")"; exit 77; }
		fail "the service's recorder exited $rc: $(cat "$T/service.err")"
	fi
	sleep 0.1
done
[ -S "$FLIGHTREC_RUN_DIR/default.sock" ] || fail "the recorder never opened its socket"
"$HELPERS/busy" 500 || fail "busy exited $?"
# ExecReload, expanded as systemd does ($MAINPID)
ENV_MAINPID=$MAINPID; ENVKEYS="$ENVKEYS MAINPID"
expand_line ExecReload
run_expanded || fail "ExecReload exited $?"
for _ in $(seq 1 100); do
	ls "$T/state"/*.frec >/dev/null 2>&1 && break
	sleep 0.05
done
f=$(ls "$T/state"/*.frec 2>/dev/null | head -n 1)
[ -n "$f" ] || fail "systemctl reload: no snapshot in $T/state: $(cat "$T/service.err")"
"$FLIGHTREC" dump "$f" >"$T/dump.txt" || fail "dump $f exited $?"
grep -q 'SAMPLE.*cpu-clock' "$T/dump.txt" || fail "$f holds no cpu-clock sample"
# the context switches: the offcpu event's samples (--off-cpu-thresh, from BPF)
grep -q 'SAMPLE.*offcpu' "$T/dump.txt" || fail "$f holds no offcpu (context switch) record"
"$FLIGHTREC" report --off-cpu -i "$f" >"$T/offcpu.txt" || fail "report --off-cpu of $f exited $?"
grep -q '^# off-CPU: switch-out to switch-in of each thread, from the offcpu event' "$T/offcpu.txt" ||
	fail "report --off-cpu of the service's file: $(head -20 "$T/offcpu.txt")"
pass "reload: $(basename "$f"), $(grep -c SAMPLE "$T/dump.txt") samples"
kill -TERM "$MAINPID"
wait "$MAINPID"; rc=$?; BGPIDS=""
[ "$rc" -eq 0 ] || fail "the recorder exited $rc on SIGTERM: $(cat "$T/service.err")"
[ "$(ls "$T/state"/*.frec | wc -l)" -eq 2 ] || fail "expected the reload's and the final snapshot"
pass "SIGTERM: exit 0, final snapshot written"

# malformed settings: one line, exit 64, nothing recorded
for bad in 'FLIGHTREC_WINDOW=lots' 'FLIGHTREC_MAX_FILES 50' 'FLIGHTREC_EVENTS=-e no_such:event -F 99' \
	'FLIGHTREC_NAME=two words'; do
	key=$(printf '%s' "$bad" | sed 's/[ =].*//')
	rm -f "$T/state"/*
	grep -v "^$key=" "$T/default" >"$T/bad"
	echo "$bad" >>"$T/bad"
	unset_env
	read_env "$T/bad" 2>/dev/null
	expand_line ExecStart
	expect_error 64 "" run_expanded
	[ -z "$(ls "$T/state")" ] || fail "'$bad': files written: $(ls "$T/state")"
	[ -e "$FLIGHTREC_RUN_DIR/default.sock" ] && fail "'$bad': a recorder is listening"
done
exit 0
