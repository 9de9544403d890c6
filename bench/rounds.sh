# bench/rounds.sh: sourced by the benches that interleave configurations
# round by round (pg.sh, offcpu_cost.sh, latency_cost.sh): each round's order.

# bench_order R CONFIG...: the configurations rotated left by R - 1 (round R,
# from 1), so that no configuration always follows the same other one
bench_order() {
	_k=$(( ($1 - 1) % ($# - 1) ))
	shift
	while [ "$_k" -gt 0 ]; do
		_f=$1; shift; set -- "$@" "$_f"
		_k=$((_k - 1))
	done
	echo "$@"
}
