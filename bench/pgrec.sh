# shellcheck shell=bash disable=SC2034,SC2154  # fr, top, tmp: the caller's; rec_configs: for it
# bench/pgrec.sh: the recorder configurations of the real-server throughput
# benches (pg.sh, pg_switch.sh), each started as a user starts it (no
# taskset, its defaults); sourced after `set -u`, with fr (the flightrec
# binary) and top (the source tree) set, fr_old (another build, for
# service-old) where the caller has one; tmp (pglib.sh's pg_tmp) by the time
# start_rec runs:
#   start_rec CONFIG  the configuration's recorder in the background, its pid
#                     in rec ("" for baseline); returns at once (the caller
#                     waits for it to have started: rings mapped, BPF attached)
#   stop_rec          the recorder stopped (SIGINT) and waited for; rec=""
#   rec_configs       the configurations start_rec knows (see pg.sh's header)
rec="" rec_extra="" rec_configs="baseline service service-old service-cpu offcpu perf perf-nostack service-bw bw-nostack keep-nostack empty empty-switch empty-resume cpu-empty"
# the service's defaults, as data/flightrec.default has them
svc_events=$(sed -n 's/^FLIGHTREC_EVENTS=//p' "$top/data/flightrec.default")
svc_window=$(sed -n 's/^FLIGHTREC_WINDOW=//p' "$top/data/flightrec.default")

# build_empty: the empty programs (bench/bpf/empty.bpf.c) and their loader
# (bench/bpf/empty.c) built into tmp, once: tmp/empty.bpf.o, tmp/empty
build_empty() {
	[ -x "$tmp/empty" ] && return 0
	clang -O2 -g -target bpf -I"/usr/include/$(gcc -dumpmachine)" \
		-c "$top/bench/bpf/empty.bpf.c" -o "$tmp/empty.bpf.o" &&
		gcc -O2 -o "$tmp/empty" "$top/bench/bpf/empty.c" -lbpf -lm || exit 1
}
# start_empty [PROGRAM...]: the empty programs (those only) started: their
# invocations on every switch and return to user space, nothing else;
# rec_extra their loader's pid
start_empty() {
	build_empty
	"$tmp/empty" "$tmp/empty.bpf.o" "$@" >/dev/null & rec_extra=$!
}

start_rec() {
	rm -rf "$tmp/rec"/*
	# shellcheck disable=SC2086
	case "$1" in
	baseline) rec=""; return 0 ;;
	service) "$fr" record -q -a $svc_events $svc_window -o "$tmp/rec" --name pgb & rec=$! ;;
	service-old) "${fr_old:?no --old build given}" record -q -a $svc_events $svc_window -o "$tmp/rec" \
		--name pgb & rec=$! ;;
	service-cpu) "$fr" record -q -a ${svc_events%--off-cpu-thresh*} $svc_window -o "$tmp/rec" \
		--name pgb & rec=$! ;;
	empty) start_empty; rec=$rec_extra rec_extra="" ;;
	empty-switch) start_empty fr_empty_switch; rec=$rec_extra rec_extra="" ;;
	empty-resume) start_empty fr_empty_resume; rec=$rec_extra rec_extra="" ;;
	cpu-empty) start_empty
		"$fr" record -q -a ${svc_events%--off-cpu-thresh*} $svc_window -o "$tmp/rec" \
			--name pgb & rec=$! ;;
	offcpu) "$fr" record -q -a -g -F 99 --off-cpu -o "$tmp/rec" --name pgb & rec=$! ;;
	service-bw) "$fr" record -q -a $svc_events -m 16M -o "$tmp/rec" --name pgb & rec=$! ;;
	bw-nostack) "$fr" record -q -a -e cpu-clock -F 99 -g -e sched:sched_switch -e sched:sched_wakeup \
		-m 16M -o "$tmp/rec" --name pgb 2>/dev/null & rec=$! ;;
	keep-nostack) "$fr" record -q -a -e cpu-clock -F 99 -g -e sched:sched_switch -e sched:sched_wakeup \
		--keep 60s -o "$tmp/rec" --name pgb 2>/dev/null & rec=$! ;;
	perf) perf record -q -a -g -e cpu-clock/freq=99/ -e sched:sched_switch -o "$tmp/rec/perf.data" \
		>/dev/null 2>&1 & rec=$! ;;
	perf-nostack) perf record -q -a -e cpu-clock/freq=99,call-graph=fp/ \
		-e sched:sched_switch/call-graph=no/ -e sched:sched_wakeup/call-graph=no/ \
		-o "$tmp/rec/perf.data" >/dev/null 2>&1 & rec=$! ;;
	*) echo "${0##*/}: unknown configuration $1" >&2; exit 64 ;;
	esac
}
stop_rec() {
	if [ -n "$rec_extra" ]; then
		kill -INT "$rec_extra" 2>/dev/null
		wait "$rec_extra" 2>/dev/null
		rec_extra=""
	fi
	[ -n "$rec" ] || return 0
	kill -INT "$rec" 2>/dev/null
	wait "$rec" 2>/dev/null
	rec=""
}
