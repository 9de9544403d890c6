#!/bin/sh
# tests/layout.sh: the arrows between the subsystems run one way (see
# doc/design-notes.md, "Map"): every #include "..." of a source file must be
# allowed for its folder, and main.c sees only the front doors (and base/).
# base/ (the hash map, the growth helper) includes nothing of ours; every
# other folder may include it. Inside src/report/ the folders run one way
# too: the front door and the commands (src/report/) -> the outputs' table
# and rows (out/) -> the off-CPU stage (offcpu/) -> the format writers
# (fmt/) -> the pass over a file (pass/) -> tracepoint text (tp/); an
# *_internal.h is its own folder's. Fails on a forbidden arrow, naming it.
set -u
top=${srcdir:-.}
cd "$top" || exit 99
bad=0
# folder: the folders (or single headers) its files may include, besides itself
rout=src/report/out roffcpu=src/report/offcpu rfmt=src/report/fmt
rpass=src/report/pass rtp=src/report/tp
allowed() {
	case "$1" in
	base) echo "" ;;
	ring) echo "base" ;;
	symbolize) echo "base" ;;
	src/util) echo "base" ;;
	src/file) echo "base ring/record.h src/util.h" ;;
	src/proc) echo "base ring/record.h src/util.h symbolize/addrspace.h symbolize/strpool.h" ;;
	src/report) echo "base ring/record.h src/util.h src/file symbolize src/proc $rout $roffcpu $rfmt $rpass $rtp" ;;
	src/report/out) echo "base ring/record.h src/util.h src/file symbolize src/proc $roffcpu $rfmt $rpass $rtp" ;;
	src/report/offcpu) echo "base ring/record.h src/util.h src/file symbolize src/proc $rfmt $rpass $rtp" ;;
	src/report/fmt) echo "base ring/record.h src/util.h src/file symbolize src/proc $rpass $rtp" ;;
	src/report/pass) echo "base ring/record.h src/util.h src/file symbolize src/proc $rtp" ;;
	src/report/tp) echo "base src/util.h" ;;
	src/push) echo "base src/util.h" ;;
	src/record) echo "base ring src/util.h src/file src/proc symbolize/kallsyms.h" ;;
	src/cmd) echo "base ring src/util.h src/cli.h src/record/record.h src/record/control.h src/report/report.h src/push/push.h" ;;
	src/main) echo "base src/cli.h" ;;
	src/cli) echo "base src/cli.h src/util.h" ;;
	*) echo "?" ;;
	esac
}
n=0
for f in base/*.[ch] ring/*.[ch] symbolize/*.[ch] src/*.[ch] src/*/*.[ch] src/*/*/*.[ch]; do
	[ -e "$f" ] || continue
	case "$f" in
	src/util.*) dir=src/util ;;
	src/cli.*) dir=src/cli ;;
	src/main.c) dir=src/main ;;
	src/cmd_*) dir=src/cmd ;;
	*) dir=${f%/*} ;;
	esac
	ok=$(allowed "$dir")
	[ "$ok" = "?" ] && { echo "FAIL: $f: folder $dir has no rule in tests/layout.sh"; bad=1; continue; }
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		n=$((n + 1))
		case "$inc" in config.h) continue ;; esac
		# its own folder (not a folder below it: src/report/ and src/report/pass/)
		[ "${inc%/*}" = "${f%/*}" ] && [ "$dir" != src/cmd ] && [ "$dir" != src/main ] && continue
		case "$inc" in
		*_internal.h) echo "FAIL: $f includes $inc: an _internal.h is its own folder's"; bad=1; continue ;;
		esac
		[ "$dir" = src/util ] && [ "$inc" = src/util.h ] && continue
		hit=0
		for a in $ok; do
			case "$inc" in "$a"|"$a"/*) hit=1 ;; esac
		done
		if [ $hit -eq 0 ]; then
			echo "FAIL: $f includes $inc: $dir may include only: ${ok:-its own folder}"
			bad=1
		fi
	done
done
[ $bad -eq 0 ] && echo "ok: $n includes checked, every arrow allowed"
exit $bad
