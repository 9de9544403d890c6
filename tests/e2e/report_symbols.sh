#!/bin/sh
# tests/e2e/report_symbols.sh: what a perf user expects of symbols: a rebuilt
# (replaced) binary still symbolizes from the build-id cache that `flightrec
# archive` filled, and from its tarball on "another machine" (--symdir);
# C++ names demangled in every output (--no-demangle keeps them raw); -g on
# a file without call chains is a usage error.
. "$TESTLIB"

FIX=${FIXTURES:?FIXTURES must point at tests/fixtures}
mkdir -p "$T/out" "$T/bin" "$T/cache" "$T/elsewhere" "$T/cxx"
cp "$HELPERS/cpuburn_fp" "$T/bin/burn"
record_fg -q -F 999 -g -e cpu-clock -m 4M -o "$T/out" -- "$T/bin/burn" 40 >/dev/null ||
	fail "record exited $?: $(cat "$T/record.err")"
set -- "$T"/out/*.frec
F=$1
top2() { awk '$1 ~ /%$/ {print $NF}' "$1" | head -2 | tr '\n' ' '; }

"$FLIGHTREC" archive --cache "$T/cache" -o "$T/objs.tar" "$F" 2>"$T/archive.err" ||
	fail "archive exited $?: $(cat "$T/archive.err")"
n=$(find "$T/cache/.build-id" -type f | wc -l)
[ "$n" -ge 1 ] || fail "archive put nothing in the cache"
pass "archive: $n objects in the cache"
# a truncated file: what its complete chunks hit is archived, said as the
# other passes say it, exit 1 (doc/exit-codes.md)
sz=$(stat -c %s "$F")
head -c $((sz - 200)) "$F" >"$T/cut.frec"
"$FLIGHTREC" archive --cache "$T/cache2" "$T/cut.frec" 2>"$T/archive2.err"
rc=$?
[ "$rc" -eq 1 ] || fail "archive of a truncated file exited $rc, expected 1: $(cat "$T/archive2.err")"
grep -q "truncated: .*archived" "$T/archive2.err" || fail "archive of a truncated file did not say so: $(cat "$T/archive2.err")"
[ "$(find "$T/cache2/.build-id" -type f 2>/dev/null | wc -l)" -ge 1 ] ||
	fail "archive of a truncated file archived nothing"
pass "archive of a truncated file: exit 1, said, $(find "$T/cache2/.build-id" -type f | wc -l) objects archived"

# a different build at the same path: its build id differs
cp "$HELPERS/cpuburn_nofp" "$T/bin/burn"
"$FLIGHTREC" report --sort sym --cache "$T/empty" "$F" >"$T/nocache.txt" ||
	fail "report exited $?"
grep -q "build id differs" "$T/nocache.txt" || fail "the replaced binary was not noticed"
"$FLIGHTREC" report --no-header --sort sym --cache "$T/cache" "$F" >"$T/cache.txt" ||
	fail "report --cache exited $?"
[ "$(top2 "$T/cache.txt")" = "hot_a hot_b " ] ||
	fail "with the cache the top functions are '$(top2 "$T/cache.txt")': $(head -12 "$T/cache.txt")"
pass "rebuilt binary: hot_a, hot_b from the build-id cache"
rm -f "$T/bin/burn"
tar -C "$T/elsewhere" -xf "$T/objs.tar" || fail "the tarball does not extract"
"$FLIGHTREC" report --no-header --sort sym --cache "$T/empty" --symdir "$T/elsewhere" "$F" \
	>"$T/symdir.txt" || fail "report --symdir exited $?"
[ "$(top2 "$T/symdir.txt")" = "hot_a hot_b " ] ||
	fail "with --symdir the top functions are '$(top2 "$T/symdir.txt")'"
pass "deleted binary: hot_a, hot_b from the extracted tarball (--symdir)"

# unknown addresses grouped per file and offset, not one [unknown]
awk '$NF ~ /^burn\+0x[0-9a-f]+$/ {n++} END {exit !(n >= 2)}' "$T/nocache.txt" ||
	fail "unknown addresses of the replaced binary are not grouped by offset: $(head -12 "$T/nocache.txt")"
pass "unknown addresses grouped as burn+0xOFFSET"

# C++: demangled names everywhere, raw with --no-demangle
cp "$FIX/cxx.bin" "$T/cxx/cxx.bin"
record_fg -q -F 10000 -g -e cpu-clock -m 16M -o "$T/cxx" -- "$T/cxx/cxx.bin" 4000000 >/dev/null ||
	fail "record of cxx.bin exited $?: $(cat "$T/record.err")"
set -- "$T"/cxx/*.frec
C=$1
"$FLIGHTREC" report --no-header --sort sym "$C" >"$T/c.txt" || fail "report exited $?"
grep -q '\[\.\] shapes::Grid::sum$' "$T/c.txt" || fail "no shapes::Grid::sum: $(head -12 "$T/c.txt")"
"$FLIGHTREC" report --folded "$C" | grep -q ';shapes::Grid::sum ' || fail "folded: not demangled"
"$FLIGHTREC" report --format=perf-script "$C" | grep -q ' shapes::Grid::sum+0x' ||
	fail "perf-script: not demangled"
"$FLIGHTREC" report --format=json "$C" | grep -q '"shapes::Grid::sum"' || fail "json: not demangled"
"$FLIGHTREC" report --no-header --sort sym --no-demangle "$C" | grep -q '_ZNK6shapes4Grid3sumEm$' ||
	fail "--no-demangle: no raw name"
pass "C++ names demangled in text, folded, perf-script, json; raw with --no-demangle"

# -g without call chains
mkdir -p "$T/flat"
record_fg -q -F 999 -e cpu-clock -m 4M -o "$T/flat" -- "$HELPERS/cpuburn_fp" 5 >/dev/null ||
	fail "record exited $?"
set -- "$T"/flat/*.frec
expect_error 64 "no call chains" "$FLIGHTREC" report -g "$1"

# the answers a report found by DWARF are kept by build id (.addrsN beside
# the decompressed debuginfo): the next report reads them instead of libdw
# (the same output); one changed in the file shows it is what answers
mkdir -p "$T/ac"
record_fg -q -F 999 -g -e cpu-clock -m 4M -o "$T/ac" -- "$HELPERS/cpuburn_fp" 5 >/dev/null ||
	fail "record exited $?"
set -- "$T"/ac/*.frec
acid=$(readelf -n "$HELPERS/cpuburn_fp" | awk '/Build ID/ {print $3}')
XDG_CACHE_HOME=$T/acx "$FLIGHTREC" report -g --sort sym "$1" >"$T/ac1.txt" || fail "report (filling)"
acf=$(ls "$T/acx/flightrec/.build-id/$(echo "$acid" | cut -c1-2)/$(echo "$acid" | cut -c3-)".addrs* 2>/dev/null | head -n 1)
[ -n "$acf" ] && [ -f "$acf" ] || fail "no .addrs file for cpuburn_fp ($acid) in the cache"
[ "$(stat -c %a "$acf")" = 644 ] || fail "$acf: mode $(stat -c %a "$acf")"
XDG_CACHE_HOME=$T/acx "$FLIGHTREC" report -g --sort sym "$1" >"$T/ac2.txt" || fail "report (cached)"
cmp -s "$T/ac1.txt" "$T/ac2.txt" || fail "the report changed once the answers were kept"
grep -q 'hot_a' "$T/ac2.txt" || fail "no hot_a: $(head -20 "$T/ac2.txt")"
sed -i 's/hot_a/hot_Z/' "$acf"
XDG_CACHE_HOME=$T/acx "$FLIGHTREC" report -g --sort sym "$1" >"$T/ac3.txt" || fail "report (changed)"
grep -q 'hot_Z' "$T/ac3.txt" || fail "the kept answers were not read: $(head -12 "$T/ac3.txt")"
# others could have written it: not read (and written anew)
chmod 666 "$acf"
XDG_CACHE_HOME=$T/acx "$FLIGHTREC" report -g --sort sym "$1" >"$T/ac4.txt" || fail "report (untrusted)"
cmp -s "$T/ac1.txt" "$T/ac4.txt" || fail "an .addrs file others can write was read"
# cut short: not read
truncate -s 50 "$acf"
XDG_CACHE_HOME=$T/acx "$FLIGHTREC" report -g --sort sym "$1" >"$T/ac5.txt" || fail "report (cut file)"
cmp -s "$T/ac1.txt" "$T/ac5.txt" || fail "a cut .addrs file changed the report"
pass "answers kept by build id ($(stat -c %s "$acf") bytes): read by the next report, not when changed by others or cut"

# separate debuginfo shipped compressed (Debian's libc6-dbg): the first report
# keeps a decompressed copy in the build-id cache, later ones read it (the
# output does not change); without libc's debuginfo there is nothing to cache
libc=$(ldd /bin/dd | awk '/libc\.so/ {print $3}')
id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ {print $3}')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ -n "$id" ] && [ -f "$dbg" ] && readelf -S -W "$dbg" 2>/dev/null | grep -q ' \.debug_info .* C '; then
	mkdir -p "$T/libc"
	record_fg -q -F 999 -g -e cpu-clock -m 4M -o "$T/libc" -- \
		dd if=/dev/zero of=/dev/null bs=1 count=400000 2>/dev/null || fail "record dd: rc $?"
	set -- "$T"/libc/*.frec
	XDG_CACHE_HOME=$T/xdg "$FLIGHTREC" report -g "$1" >"$T/libc1.txt" || fail "report (filling)"
	entry=$T/xdg/flightrec/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	[ -f "$entry" ] || fail "no decompressed copy of $dbg in the cache"
	readelf -S -W "$entry" 2>/dev/null | grep -q ' \.debug_info .* C ' && fail "the cached copy is still compressed"
	XDG_CACHE_HOME=$T/xdg "$FLIGHTREC" report -g "$1" >"$T/libc2.txt" || fail "report (cached)"
	cmp -s "$T/libc1.txt" "$T/libc2.txt" || fail "the report changed once the cache was filled"
	ls "${entry%.debug}".addrs* >/dev/null 2>&1 || fail "no answers kept for libc beside $entry"
	grep -q 'libc.so.6' "$T/libc2.txt" || fail "no libc frame: $(head -20 "$T/libc2.txt")"
	pass "libc's compressed debuginfo cached decompressed ($(du -k "$entry" | cut -f1) KiB); reports equal"
else
	pass "no compressed separate debuginfo for $libc here (libc6-dbg): nothing to cache"
fi

# a stripped binary without debuginfo (dd): libdw 0.188 dlopens libdebuginfod
# (with libcurl, gnutls, krb5...: 40-60 ms) when no local debug file is found,
# though it asks servers only when DEBUGINFOD_URLS names some; the report
# asks libdw only where a local file exists or a server is named
if ldconfig -p 2>/dev/null | grep -q 'libdebuginfod\.so\.1 '; then
	mkdir -p "$T/dd"
	record_fg -q -F 999 -g -e cpu-clock -m 4M -o "$T/dd" -- \
		dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null || fail "record dd: rc $?"
	set -- "$T"/dd/*.frec
	env -u DEBUGINFOD_URLS LD_DEBUG=files "$FLIGHTREC" report --sort dso "$1" \
		>"$T/dd1.txt" 2>"$T/ld1.txt" || fail "report exited $?"
	grep -q '[[:space:]]dd$' "$T/dd1.txt" || fail "no samples in dd: $(head -20 "$T/dd1.txt")"
	grep -q 'file=libdebuginfod' "$T/ld1.txt" && fail "libdebuginfod loaded without DEBUGINFOD_URLS"
	DEBUGINFOD_URLS=http://127.0.0.1:9 DEBUGINFOD_CACHE_PATH=$T/dcache DEBUGINFOD_TIMEOUT=2 \
		LD_DEBUG=files "$FLIGHTREC" report --sort dso "$1" >"$T/dd2.txt" 2>"$T/ld2.txt" ||
		fail "report with DEBUGINFOD_URLS exited $?"
	grep -q 'file=libdebuginfod' "$T/ld2.txt" ||
		fail "DEBUGINFOD_URLS set, yet libdebuginfod was not asked"
	cmp -s "$T/dd1.txt" "$T/dd2.txt" || fail "the report differs with an unreachable server"
	pass "no libdebuginfod without DEBUGINFOD_URLS; asked (same report) with it"
else
	pass "no libdebuginfod.so.1 here: nothing to check"
fi
