#!/bin/sh
# tests/e2e/man_options.sh: the man page names every long option that each
# command's --help lists (argp's own --help, --usage and --version aside), so
# doc/flightrec.1 cannot fall behind the commands. Needs no kernel.
. "$TESTLIB"

man=${MANPAGE:?MANPAGE must point at doc/flightrec.1}
# the page as text: \- is -, font changes dropped
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man" >"$T/man.txt"
cmds="record snapshot dump report diff archive"
"$FLIGHTREC" list --help >/dev/null 2>&1 && cmds="$cmds list"
missing=""
for c in $cmds; do
	"$FLIGHTREC" "$c" --help >"$T/help.txt" 2>&1 || fail "flightrec $c --help exited $?"
	# option lines only: "  -x, --long=ARG" or "      --long"
	opts=$(grep -oE '^ +(-[^ ], )?--[a-z][a-z0-9-]*' "$T/help.txt" | sed 's/.*--/--/' | sort -u)
	[ -n "$opts" ] || { pass "flightrec $c: no options"; continue; }
	n=0
	for o in $opts; do
		case "$o" in --help|--usage|--version) continue ;; esac
		n=$((n + 1))
		grep -qE -- "$o([^a-z0-9-]|\$)" "$T/man.txt" || missing="$missing $c:$o"
	done
	pass "flightrec $c: $n long options"
done
[ -z "$missing" ] || fail "doc/flightrec.1 does not mention:$missing"
exit 0
