# bench/lib.sh: sourced by bench/run: the workloads, and starting, stopping
# and measuring each recorder configuration (baseline, floor, minfloor, flightrec
# --backward/--forward, perf record [--overwrite|-z], the ftrace ring; and
# off-CPU recording: flightrec --off-cpu beside perf's sched_switch -g).
# Needs: BB (bench build dir), FLIGHTREC, PERF, RUNSTAT, RING, RING_KB, TRACEFS,
# the N_* workload sizes and die/log from bench/run.

# ---- workloads -------------------------------------------------------------

wl_cmd() {
	case $1 in
	comm) echo "$BB/workloads/comm_loop -n $N_COMM" ;;
	read) echo "$BB/workloads/read_loop -n $N_READ" ;;
	pipe) echo "$BB/workloads/pipe_pingpong -n $N_PIPE" ;;
	messaging) echo "$BB/workloads/messaging -g 2 -f 10 -n $N_MSG" ;;
	cpu) echo "$BB/workloads/cpu_tree -n $N_CPU" ;;
	*) die "unknown workload '$1'" ;;
	esac
}

# The events every recorder configuration records for the workload.
wl_events() {
	case $1 in
	comm) echo syscalls:sys_enter_prctl ;;
	read) echo syscalls:sys_enter_read ;;
	pipe) echo sched:sched_switch ;;
	messaging) echo sched:sched_switch,sched:sched_wakeup ;;
	cpu) echo cpu-clock ;;
	esac
}

# Sampling options shared by flightrec, the floor and perf.
wl_opts() {
	case $1 in
	cpu) echo "-F 4000 -g" ;;
	*) echo "" ;;
	esac
}

# tracefs event directories for the ftrace ring ("" when there is none).
wl_ftrace() {
	case $1 in
	comm) echo syscalls/sys_enter_prctl ;;
	read) echo syscalls/sys_enter_read ;;
	pipe) echo sched/sched_switch ;;
	messaging) echo "sched/sched_switch sched/sched_wakeup" ;;
	*) echo "" ;;
	esac
}

wl_unit() {
	case $1 in
	comm) echo "ns per prctl" ;;
	read) echo "ns per read" ;;
	pipe) echo "ns per round trip" ;;
	messaging) echo "ns per message" ;;
	cpu) echo "ns per iteration" ;;
	esac
}

# Off-CPU configurations (offcpu-backward, offcpu-forward, offcpu-keep,
# perf-offcpu, perf-offcpu-overwrite) record the same whatever the workload,
# as users profile wall-clock time: cpu-clock at 999 Hz with call chains, and
# every context switch with its stack plus the wakeups: flightrec --off-cpu,
# perf -e sched:sched_switch,sched:sched_wakeup -g, every switch and no
# cpu-clock (per command also
# --switch-events, the task's own switch-in, as --off-cpu records it).
offcpu_cfg() {
	case $1 in
	offcpu-*) ev=cpu-clock opts="-F 999 -g --off-cpu" base=${1#offcpu-} ;;
	# offcpusw-*: --off-cpu with -e sched:sched_switch, so no cpu-clock:
	# perf-offcpu's events exactly (plus, per command, the switch-ins)
	offcpusw-*) ev=sched:sched_switch opts="-g --off-cpu" base=${1#offcpusw-} ;;
	# perf-offcpuclk*: perf-offcpu's, plus cpu-clock at 999 Hz as flightrec
	# records it (perf's per-event freq term): flightrec's recording, like
	# for like
	perf-offcpuclk*)
		ev=sched:sched_switch,sched:sched_wakeup,cpu-clock/freq=999/ opts="-g"
		base=perf${1#perf-offcpuclk} ;;
	# perf's -F would sample the tracepoints at 999 Hz too (freq=1 on every
	# event): the switches alone, each one, as the issue's reference is
	perf-offcpu*) ev=sched:sched_switch,sched:sched_wakeup opts="-g" base=perf${1#perf-offcpu} ;;
	*) return 1 ;;
	esac
}

# ---- helpers ----------------------------------------------------------------

# pin_cmd CPU: PIN, the command prefix that pins to CPU with taskset, or
# nothing when CPU is empty (the sets "user" and "free": as users start it).
# An array, not a function around CMD: with CMD & in the background, $! is
# then the command itself, not a subshell.
pin_cmd() {
	PIN=()
	[ -z "$1" ] || PIN=(taskset -c "$1")
}

# wait_for FILE PATTERN PID SECONDS: 0 when FILE has a line matching PATTERN;
# 1 when PID exits first or time runs out.
wait_for() {
	local i=0 max=$(($4 * 100))
	while [ "$i" -lt "$max" ]; do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || { grep -q -- "$2" "$1" 2>/dev/null && return 0; return 1; }
		sleep 0.01
		i=$((i + 1))
	done
	return 1
}

# The first number before WORD on the last status line with WORD in FILE.
num_before() {
	grep -o "[0-9][0-9]* $2" "$1" 2>/dev/null | tail -n 1 | cut -d' ' -f1
}

# ---- the ftrace ring ----------------------------------------------------------

FT_INST=""

ftrace_start() {
	local evs e
	evs=$(wl_ftrace "$1")
	[ -n "$evs" ] || return 1
	[ -n "$TRACEFS" ] || return 1
	FT_INST="$TRACEFS/instances/frbench_$$"
	[ -d "$FT_INST" ] && rmdir "$FT_INST"
	mkdir "$FT_INST" || return 2
	echo "$RING_KB" >"$FT_INST/buffer_size_kb"
	echo 1 >"$FT_INST/options/overwrite"
	for e in $evs; do
		echo 1 >"$FT_INST/events/$e/enable" || return 2
	done
	echo 1 >"$FT_INST/tracing_on"
}

# Records the workload CPU's ring statistics in $d/ftrace.stats, removes the instance.
ftrace_stop() {
	[ -n "$FT_INST" ] || return 0
	echo 0 >"$FT_INST/tracing_on"
	cat "$FT_INST/per_cpu/cpu$WCPU/stats" >"$1/ftrace.stats" 2>/dev/null || true
	echo 0 >"$FT_INST/events/enable"
	rmdir "$FT_INST" || log "warning: could not remove $FT_INST"
	FT_INST=""
}

# ---- recorder configurations -------------------------------------------------

REC_PID=""
CTL_FD=""
ACK_FD=""

# rec_start CONFIG WORKLOAD RECORDER_CPU DIR: 0 started (REC_PID set, or
# empty for baseline/ftrace); 1 the configuration is not available (reason in
# DIR/na); 2 it failed (DIR/err says why).
rec_start() {
	local cfg=$1 wl=$2 rcpu=$3 d=$4 ev opts e line base
	local -a evargs=()
	ev=$(wl_events "$wl")
	opts=$(wl_opts "$wl")
	offcpu_cfg "$cfg" && cfg=$base
	REC_PID=""
	mkdir -p "$d"
	case $cfg in
	baseline) return 0 ;;
	ftrace)
		if [ -z "$(wl_ftrace "$wl")" ]; then
			echo "no ftrace equivalent of $ev" >"$d/na"
			return 1
		fi
		[ -n "$TRACEFS" ] || { echo "tracefs not found" >"$d/na"; return 1; }
		ftrace_start "$wl" 2>"$d/err" || return 2
		return 0
		;;
	floor | minfloor | floor-nodrain | floor-sb* | floorc | floorc-*)
		for e in ${ev//,/ }; do evargs+=(-e "$e"); done
		# floorc*: the COMMs in the drained sideband ring (the layout
		# without name tracepoints), floor*: the recorder's (COMMs in the
		# sample ring); -sbSIZE: a sideband ring of SIZE per CPU
		case $cfg in floorc*) evargs+=(--comm-sideband) ;; esac
		case $cfg in *-sb*) evargs+=(-s "${cfg##*-sb}") ;; esac
		[ "$cfg" = minfloor ] && evargs+=(--minimal)
		case $cfg in *-nodrain) evargs+=(--no-drain) ;; esac
		# shellcheck disable=SC2086
		pin_cmd "$rcpu"
		"${PIN[@]}" "$RUNSTAT" -o "$d/rusage" "$BB/floor" "${evargs[@]}" $opts \
			-m "$RING" >"$d/out" 2>"$d/err" &
		REC_PID=$!
		wait_for "$d/out" '^ready' "$REC_PID" 20 || return 2
		;;
	backward | forward | forward-any | forward-own | keep | *-old)
		# NAME-old: configuration NAME run by the --old binary
		local bin=$FLIGHTREC
		if [ "${cfg%-old}" != "$cfg" ]; then
			[ -n "$FLIGHTREC_OLD" ] || { echo "no --old binary given" >"$d/na"; return 1; }
			bin=$FLIGHTREC_OLD
			cfg=${cfg%-old}
		fi
		local mode=${cfg%-any}
		mode=${mode%-own}
		local -a rextra=()
		[ "$cfg" = forward-any ] && rextra=(--reader-cpus any)
		[ "$cfg" = forward-own ] && rextra=(--reader-cpus own)
		# --keep: the in-memory window users ask for ("the last minute")
		[ "$cfg" = keep ] && mode=keep rextra=(60s)
		if [ "$mode" = forward ] && [ "$FORWARD" != yes ]; then
			echo "$FORWARD" >"$d/na"
			return 1
		fi
		mkdir -p "$d/files" && mkdir -m 700 -p "$d/run"   # run dirs: 0700, the recorder checks
		# shellcheck disable=SC2086
		pin_cmd "$rcpu"
		"${PIN[@]}" "$RUNSTAT" -o "$d/rusage" "$bin" record -a -e "$ev" $opts \
			"--$mode" "${rextra[@]}" -m "$RING" -o "$d/files" --name "frbench$$" --run-dir "$d/run" \
			>"$d/out" 2>"$d/err" &
		REC_PID=$!
		if ! wait_for "$d/err" 'recording' "$REC_PID" 20; then
			if [ "$mode" = forward ] && grep -q 'not supported' "$d/err"; then
				FORWARD="not available: $(head -n 1 "$d/err")"
				echo "$FORWARD" >"$d/na"
				wait "$REC_PID" 2>/dev/null || true
				REC_PID=""
				return 1
			fi
			return 2
		fi
		;;
	perf | perf-overwrite | perf-z)
		[ -n "$PERF" ] || { echo "perf is not installed" >"$d/na"; return 1; }
		local -a pextra=()
		[ "$cfg" = perf-overwrite ] && pextra=(--overwrite)
		[ "$cfg" = perf-z ] && pextra=(-z)
		mkfifo "$d/ctl" "$d/ack"
		# shellcheck disable=SC2086
		pin_cmd "$rcpu"
		"${PIN[@]}" "$RUNSTAT" -o "$d/rusage" "$PERF" record -a -e "$ev" $opts \
			"${pextra[@]}" -m "$RING" -k mono --buildid-mmap -D -1 \
			--control "fifo:$d/ctl,$d/ack" -o "$d/perf.data" >"$d/out" 2>"$d/err" &
		REC_PID=$!
		exec {CTL_FD}<>"$d/ctl" {ACK_FD}<>"$d/ack"
		echo enable >&"$CTL_FD"
		if ! read -r -t 20 -u "$ACK_FD" line || [ "$line" != ack ]; then
			return 2
		fi
		;;
	*) die "unknown configuration '$cfg'" ;;
	esac
	return 0
}

# rec_cmd CONFIG WORKLOAD DIR: the set "cmd": the recorder started as a user
# profiling one command starts it, `record -e EV -- taskset -c WCPU WORKLOAD`
# (no -a, the recorder unpinned), in the background (REC_PID; REC_DONE=1 so
# that rec_stop waits for it instead of stopping it); the workload's figure
# comes out on DIR/out. baseline runs the pinned workload alone; the floor
# configurations are system-wide only and run as in the other sets (rec_start).
# The recorder CPU figure of this set includes the workload (its child).
# 0 started; 1 not available here (DIR/na); 2 failed.
rec_cmd() {
	local cfg=$1 wl=$2 d=$3 ev opts bin=$FLIGHTREC mode base
	local -a wcmd rextra=()
	ev=$(wl_events "$wl")
	opts=$(wl_opts "$wl")
	offcpu_cfg "$cfg" && { [ "${cfg#perf}" != "$cfg" ] && opts="$opts --switch-events"
			      cfg=$base; }
	read -r -a wcmd <<<"$(wl_cmd "$wl")"
	REC_PID=""
	REC_DONE=1
	mkdir -p "$d"
	case $cfg in
	baseline)
		taskset -c "$WCPU" "${wcmd[@]}" >"$d/out" 2>"$d/wl.err" &
		;;
	backward | forward | forward-any | forward-own | keep | *-old)
		if [ "${cfg%-old}" != "$cfg" ]; then
			[ -n "$FLIGHTREC_OLD" ] || { echo "no --old binary given" >"$d/na"; return 1; }
			bin=$FLIGHTREC_OLD
			cfg=${cfg%-old}
		fi
		mode=${cfg%-any}
		mode=${mode%-own}
		[ "$cfg" = forward-any ] && rextra=(--reader-cpus any)
		[ "$cfg" = forward-own ] && rextra=(--reader-cpus own)
		[ "$cfg" = keep ] && rextra=(60s)
		mkdir -p "$d/files" && mkdir -m 700 -p "$d/run"
		# shellcheck disable=SC2086
		"$RUNSTAT" -o "$d/rusage" "$bin" record -e "$ev" $opts "--$mode" "${rextra[@]}" \
			-m "$RING" -o "$d/files" --name "frbench$$" --run-dir "$d/run" \
			-- taskset -c "$WCPU" "${wcmd[@]}" >"$d/out" 2>"$d/err" &
		;;
	perf | perf-overwrite | perf-z)
		[ -n "$PERF" ] || { echo "perf is not installed" >"$d/na"; return 1; }
		[ "$cfg" = perf-overwrite ] && rextra=(--overwrite)
		[ "$cfg" = perf-z ] && rextra=(-z)
		# shellcheck disable=SC2086
		"$RUNSTAT" -o "$d/rusage" "$PERF" record -q -e "$ev" $opts "${rextra[@]}" -m "$RING" \
			-k mono -o "$d/perf.data" -- taskset -c "$WCPU" "${wcmd[@]}" >"$d/out" 2>"$d/err" &
		;;
	ftrace)
		echo "the ftrace ring has no per-command form" >"$d/na"
		return 1
		;;
	*) die "unknown configuration '$cfg'" ;;
	esac
	REC_PID=$!
	return 0
}

# rec_stop CONFIG DIR: stops the recorder and writes DIR/metrics:
# "cpu_s maxrss_kb bytes samples lost records" ("NA" where a figure does not
# apply); records: every kernel record in the file (samples and sideband).
rec_stop() {
	local cfg=$1 d=$2 rc=0 cpu=NA rss=NA bytes=NA samples=NA lost=NA records=NA f sb
	if [ "$cfg" = ftrace ]; then
		ftrace_stop "$d"
		if [ -f "$d/ftrace.stats" ]; then
			# what the ring holds now: entries and their bytes
			samples=$(awk '/^entries:/{print $2}' "$d/ftrace.stats")
			bytes=$(awk '/^bytes:/{print $2}' "$d/ftrace.stats")
			records=$samples
			lost=0
		fi
	fi
	if [ -n "$REC_PID" ]; then
		[ "${REC_DONE:-0}" = 1 ] || kill -INT "$REC_PID" 2>/dev/null || true
		REC_DONE=0
		wait "$REC_PID" || rc=$?
		REC_PID=""
		[ -n "$CTL_FD" ] && exec {CTL_FD}>&- {ACK_FD}>&-
		CTL_FD=""
		ACK_FD=""
		if [ -s "$d/rusage" ]; then
			cpu=$(awk '{printf "%.4f", $2 + $3}' "$d/rusage")
			rss=$(awk '{print $4}' "$d/rusage")
		fi
		case $cfg in
		floor | minfloor | floor-nodrain | floor-sb* | floorc | floorc-*)
			lost=$(grep -o '[0-9]* samples lost' "$d/err" | cut -d' ' -f1)
			;;
		backward | forward | forward-any | forward-own | keep | *-old | offcpu-* | offcpusw-*)
			samples=$(num_before "$d/err" samples)
			sb=$(num_before "$d/err" sideband)
			lost=$(num_before "$d/err" lost)
			[ -n "$samples" ] && records=$((samples + ${sb:-0}))
			bytes=0
			for f in "$d"/files/*; do
				[ -f "$f" ] && bytes=$((bytes + $(stat -c %s "$f")))
			done
			# a backward recorder writes its window once at the stop: its
			# status line has the file's samples; forward files hold them all
			;;
		perf*)
			if [ -f "$d/perf.data" ]; then
				bytes=$(stat -c %s "$d/perf.data")
				"$PERF" report --stats -i "$d/perf.data" >"$d/stats" 2>&1 || true
				samples=$(awk '/^ *SAMPLE events:/{print $3; exit}' "$d/stats")
				lost=$(awk '/^ *LOST(_SAMPLES)? events:/{s+=$3} END{print s+0}' "$d/stats")
				# kernel records: the aggregated counts less perf's own records
				records=$(awk '/ stats:$/ && !/^Aggregated/ {exit} / events:/ && $1 !~ /^(TOTAL|FINISHED_ROUND|FINISHED_INIT|COMPRESSED|COMPRESSED2|ID_INDEX|THREAD_MAP|CPU_MAP|TIME_CONV|BUILD_ID|HEADER_.*|STAT|STAT_ROUND|STAT_CONFIG|EVENT_UPDATE|FEATURE|AUXTRACE_INFO)$/ {s += $3} END {print s + 0}' "$d/stats")
			fi
			;;
		esac
	fi
	echo "$cpu $rss ${bytes:-NA} ${samples:-NA} ${lost:-NA} ${records:-NA}" >"$d/metrics"
	# flightrec exits 1 when it lost records (counted above); perf may say 130
	[ "$rc" -eq 0 ] || [ "$rc" -eq 130 ] || { [ "$rc" -eq 1 ] && [ "$lost" != NA ] && [ "$lost" != 0 ]; }
}
