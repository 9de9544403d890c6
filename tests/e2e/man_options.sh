#!/bin/bash
# tests/e2e/man_options.sh: each command's options as `flightrec help CMD`
# lists them are the one source: doc/flightrec.1 describes each in the
# command's own sections (CMD OPTIONS, or a shared one naming CMD) once and
# names no option the command lacks; `flightrec --help` names under each
# command only its options; the bash completion (data/flightrec.bash)
# offers each; its --format and --sort values are the ones report's own
# errors list. Needs no kernel.
. "$TESTLIB"

man=${MANPAGE:?MANPAGE must point at doc/flightrec.1}
comp=${DATADIR:?DATADIR must point at data/}/flightrec.bash
cmds="record snapshot dump report diff archive push"
"$FLIGHTREC" list --help >/dev/null 2>&1 && cmds="$cmds list"
mkdir -p "$T/bin"
ln -s "$FLIGHTREC" "$T/bin/flightrec"

# the man page's items (the line after .TP) per section, as "SECTION<TAB>option"
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man" | awk '
	/^\.SH / { sec = substr($0, 5); gsub(/"/, "", sec); next }
	/^\.TP/ { item = 1; next }
	item { item = 0; s = $0; gsub(/[",]/, " ", s); n = split(s, w, / +/)
		for (i = 1; i <= n; i++) if (w[i] ~ /^--?[A-Za-z0-9?][A-Za-z0-9-]*(=.*)?$/) {
			o = w[i]; sub(/=.*/, "", o); print sec "\t" o } }' >"$T/items"
# a command's sections: "CMD OPTIONS" or "... OPTIONS (a, CMD, b)"
sections() { awk -F'\t' -v c="$(echo "$1" | tr a-z A-Z)" -v l="$1" '
	$1 == c " OPTIONS" || ($1 ~ /\(/ && index($1, "(") && match($1, "[(, ]" l "[,)]")) { print $1 }' "$T/items" | sort -u; }
# the command's options in its help: "  -x, --long", "      --long", "  -x  text"
help_opts() {
	"$FLIGHTREC" help "$1" | grep -oE '^  (-[A-Za-z0-9?], )?--[a-z][a-z0-9-]*|^      --[a-z][a-z0-9-]*|^  -[A-Za-z0-9?] ' |
		grep -oE -- '--?[A-Za-z0-9?][a-z0-9-]*' | grep -vxE -- '--help|--usage|--version|-\?|-V' | sort -u
}
# what the completion offers after "flightrec WORDS..." (the last word is being completed)
complete_words() {
	PATH="$T/bin:$PATH" bash -c '
		. "$1"; shift
		COMP_WORDS=(flightrec "$@"); COMP_CWORD=$#
		COMP_LINE="flightrec $*"; COMP_POINT=${#COMP_LINE}
		_flightrec flightrec "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' sh "$comp" "$@" | sort -u
}

bad=""
for c in $cmds; do
	help_opts "$c" >"$T/help.$c"
	[ -s "$T/help.$c" ] || { pass "$c: no options"; continue; }
	secs=$(sections "$c")
	[ -n "$secs" ] || fail "doc/flightrec.1 has no section for $c's options"
	echo "$secs" | while IFS= read -r s; do
		awk -F'\t' -v s="$s" '$1 == s { print $2 }' "$T/items"
	done >"$T/man.$c"
	dup=$(sort "$T/man.$c" | uniq -d | tr '\n' ' ')
	[ -z "$dup" ] || bad="$bad; man: $c: described twice: $dup"
	sort -u "$T/man.$c" -o "$T/man.$c"
	miss=$(comm -23 "$T/help.$c" "$T/man.$c" | tr '\n' ' ')
	[ -z "$miss" ] || bad="$bad; man: $c: not described: $miss"
	extra=$(comm -13 "$T/help.$c" "$T/man.$c" | tr '\n' ' ')
	[ -z "$extra" ] || bad="$bad; man: $c: described but not in help: $extra"
	complete_words "$c" - >"$T/comp.$c"
	sed 's/=$//' "$T/comp.$c" | sort -u >"$T/comp1.$c"
	miss=$(comm -23 "$T/help.$c" "$T/comp1.$c" | tr '\n' ' ')
	[ -z "$miss" ] || bad="$bad; completion: $c: does not offer: $miss"
	pass "$c: $(wc -l <"$T/help.$c") options in help, the man page ($(echo $secs | tr '\n' ' ')) and the completion"
done

# flightrec --help: every command listed, and the options named under each
# command are that command's
for c in $cmds; do
	"$FLIGHTREC" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on' |
		grep -q "^  $c " || bad="$bad; flightrec --help does not list $c"
done
"$FLIGHTREC" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
	on && /^  [a-z]/ { c = $1 } on { print c "\t" $0 }' >"$T/top"
for c in $cmds; do
	[ -s "$T/help.$c" ] || continue
	for o in $(awk -F'\t' -v c="$c" '$1 == c { print $2 }' "$T/top" |
		   grep -oE -- '(^|[ (])--?[A-Za-z][a-z0-9-]*' | grep -oE -- '--?[A-Za-z][a-z0-9-]*'); do
		grep -qx -- "$o" "$T/help.$c" || bad="$bad; flightrec --help: $o under $c, which has no $o"
	done
done

# report's values: the lists its own usage errors give
"$FLIGHTREC" report --format=x "$FIXTURES/v1.frec" 2>"$T/fmt.err"
fmts=$(sed -n 's/.*expected \(.*\)$/\1/p' "$T/fmt.err" | sed 's/ or /, /' | tr -d ' ' | tr ',' '\n' | sort -u)
[ "$(echo "$fmts" | wc -l)" -ge 5 ] || fail "report --format=x: $(cat "$T/fmt.err")"
got=$(complete_words report --format "")
[ "$got" = "$fmts" ] || bad="$bad; completion: --format offers '$(echo $got)', report takes '$(echo $fmts)'"
got=$(complete_words report --format=p | sed 's/^--format=//')
want=$(echo "$fmts" | grep '^p')
[ "$got" = "$want" ] || bad="$bad; completion: --format=p offers '$(echo $got)', want '$(echo $want)'"
"$FLIGHTREC" report --sort x "$FIXTURES/v1.frec" 2>"$T/sort.err"
keys=$(sed -n 's/.*expected keys from \([a-z,]*\).*/\1/p' "$T/sort.err" | tr ',' '\n' | grep . | sort -u)
[ "$(echo "$keys" | wc -l)" -ge 5 ] || fail "report --sort x: $(cat "$T/sort.err")"
got=$(complete_words report --sort "")
[ "$got" = "$keys" ] || bad="$bad; completion: --sort offers '$(echo $got)', report takes '$(echo $keys)'"
got=$(complete_words report --sort comm,d)
want=$(echo "$keys" | grep '^d' | sed 's/^/comm,/')
[ "$got" = "$want" ] || bad="$bad; completion: --sort comm,d offers '$(echo $got)', want '$(echo $want)'"
manp=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$man")
for v in $fmts $keys; do
	echo "$manp" | grep -qw -- "$v" || bad="$bad; man: report value $v not named"
done
[ -z "$bad" ] || fail "${bad#; }"
pass "--format: $(echo $fmts); --sort: $(echo $keys): offered by the completion, named by the man page"
exit 0
