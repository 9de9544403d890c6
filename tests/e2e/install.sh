#!/bin/sh
# tests/e2e/install.sh: make install and uninstall (DESTDIR staging) treat
# /etc/default/flightrec as a conffile: installed where absent; an edited one
# is kept, the new default beside it as flightrec.new, said; uninstall removes
# it only unedited. Needs no kernel.
. "$TESTLIB"
B=${BUILDDIR:?BUILDDIR must point at the build tree}
new=$DATADIR/flightrec.default
stage=$T/stage
mk() { env -u MAKEFLAGS -u MFLAGS make -s --no-print-directory -C "$B" "$1" DESTDIR="$stage" >"$T/make.out" 2>&1 || fail "make $1 exited $?: $(cat "$T/make.out")"; }

mk install-data-local
f=$(find "$stage" -path '*/default/flightrec' -type f)
[ -n "$f" ] && cmp -s "$new" "$f" || fail "no default/flightrec installed: $(find "$stage")"
pass "install: $f is the shipped default"

echo 'FLIGHTREC_EXTRA="-F 99"   # the admin edited this' >>"$f"
cp "$f" "$T/edited"
mk install-data-local
cmp -s "$T/edited" "$f" || fail "install overwrote the edited $f"
cmp -s "$new" "$f.new" || fail "the new default is not beside it as $f.new"
grep -q "$f: edited, kept; the new default is $f.new" "$T/make.out" || fail "install did not say so: $(cat "$T/make.out")"
pass "install over an edited file: kept, $(cat "$T/make.out")"

mk uninstall-local
cmp -s "$T/edited" "$f" || fail "uninstall removed the edited $f"
[ ! -e "$f.new" ] || fail "uninstall left $f.new"
grep -q "$f: edited, kept" "$T/make.out" || fail "uninstall did not say it kept $f: $(cat "$T/make.out")"
pass "uninstall of an edited file: kept, said"

cp "$new" "$f"
mk install-data-local
[ ! -e "$f.new" ] || fail "install of an unchanged file left $f.new"
mk uninstall-local
[ ! -e "$f" ] || fail "uninstall left the unedited $f"
pass "an unedited file: installed over, and removed by uninstall"
exit 0
