# bash completion for flightrec(1): commands, each command's options, event
# names for -e/--trigger (from `flightrec list` where it exists, else the
# software events and the tracepoints in tracefs), recorder names.
# fall-backs where the bash-completion package is not loaded
declare -F _filedir >/dev/null ||
	_filedir() { COMPREPLY=($(compgen -f -- "$cur")); }
declare -F __ltrim_colon_completions >/dev/null ||
	__ltrim_colon_completions() { :; }

_flightrec_events()
{
	local tfs
	if flightrec list --help >/dev/null 2>&1; then
		flightrec list 2>/dev/null | awk '{print $1}'
		return
	fi
	printf '%s\n' cpu-clock task-clock page-faults context-switches cpu-migrations \
		minor-faults major-faults alignment-faults emulation-faults \
		cycles instructions cache-references cache-misses branches branch-misses
	for tfs in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [[ -r $tfs/available_events ]]; then
			cat "$tfs/available_events"
			return
		fi
	done
}

# report's --format values and --sort keys (the lists its usage errors give)
_flightrec_formats="text folded flamegraph html pprof otlp perf-script json waits critical-path"
_flightrec_sort_keys="comm pid dso sym srcline tid cpu latency"

# --sort KEY[,KEY...]: complete the key after the last comma, each at most
# once (latency, an order, is report's only: $2 is the command)
_flightrec_keys()
{
	local pre="" k keys=""
	[[ $1 == *,* ]] && pre=${1%,*},
	for k in $_flightrec_sort_keys; do
		[[ $k == latency && $2 != report ]] && continue
		[[ ,$pre == *,$k,* ]] || keys="$keys $k"
	done
	COMPREPLY=($(compgen -P "$pre" -W "$keys" -- "${1##*,}"))
	[[ ${#COMPREPLY[@]} -gt 0 ]] && compopt -o nospace 2>/dev/null
}

_flightrec_options()
{
	# every long option the command's --help names, and its short ones
	flightrec "$1" --help 2>/dev/null | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' |
		tr -d ' ,' | sort -u
}

_flightrec()
{
	local cur prev words cword cmd i
	if declare -F _init_completion >/dev/null; then
		_init_completion -n : || return
	else    # without the bash-completion package
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi
	local commands="record snapshot dump report diff archive push"
	flightrec list --help >/dev/null 2>&1 && commands="$commands list"

	cmd=""
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		record|snapshot|dump|report|diff|archive|list|push) cmd=${words[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
		return
	fi
	case $prev in
	-e|--event|--trigger)
		COMPREPLY=($(compgen -W "$(_flightrec_events)" -- "$cur"))
		__ltrim_colon_completions "$cur"
		return ;;
	--flamegraph)
		_filedir svg
		return ;;
	-o|--output|--run-dir)
		[[ $cmd == record ]] && { _filedir -d; return; }
		_filedir
		return ;;
	-p|--pid)
		COMPREPLY=($(compgen -W "$(command ps -e -o pid= 2>/dev/null)" -- "$cur"))
		return ;;
	-G|--cgroup)
		local root
		root=$(awk '$3=="cgroup2" {print $2; exit}' /proc/self/mounts 2>/dev/null)
		[[ -n $root ]] && COMPREPLY=($(cd "$root" 2>/dev/null && compgen -d -- "$cur"))
		return ;;
	--name)
		local rd=${FLIGHTREC_RUN_DIR:-/run/flightrec}
		COMPREPLY=($(compgen -W "$(ls "$rd" 2>/dev/null | sed -n 's/\.sock$//p')" -- "$cur"))
		return ;;
	--call-graph)
		COMPREPLY=($(compgen -W "fp dwarf" -- "$cur"))
		return ;;
	--format)
		COMPREPLY=($(compgen -W "$_flightrec_formats" -- "$cur"))
		return ;;
	--sort)
		_flightrec_keys "$cur" "$cmd"
		return ;;
	--header-file|--push-header-file)
		_filedir
		return ;;
	--filter|--trigger-filter|--trigger-latency|--exec-on-snapshot|--push|--push-header|--push-timeout|\
	--push-spool|-H|--header|--timeout|--retries|-F|--freq|-c|--count|-m|--mmap-pages|\
	--window-size|--window-time|--trigger-after|--max-snapshots|--max-files|-z|\
	--compression-level|--after|--split-at|--alpha|--percent-limit|--time|--critical-path)
		return ;;
	esac
	case $cur in
	--format=*)
		COMPREPLY=($(compgen -P --format= -W "$_flightrec_formats" -- "${cur#--format=}"))
		return ;;
	--sort=*)
		_flightrec_keys "${cur#--sort=}" "$cmd"
		COMPREPLY=("${COMPREPLY[@]/#/--sort=}")
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_flightrec_options "$cmd")" -- "$cur"))
		[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
		return
	fi
	case $cmd in
	dump|report|diff|archive) _filedir frec ;;
	push) _filedir ;;
	esac
} &&
	complete -F _flightrec flightrec
