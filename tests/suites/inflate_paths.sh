# inflate_paths: the ISA-L build and the zlib fallback read alike.  With
# ISA-L, `make units` also links hloscope-zlib, zipcat and zipcat_zlib into
# $HLOSCOPE_BUILD/tests (tests/tools/zipcat.c writes every member raw).
#   1. every real file and a numpy-written file with multi-megabyte members:
#      zipcat == zipcat_zlib == Python's zipfile, byte for byte
#   2. the corrupt corpus (tests/fixtures/make_corrupt.py): `check` gives the
#      same line per file with both; only the byte offset and the library's
#      reason in "corrupt deflate data near compressed byte N (...)" may
#      differ (ISA-L reads ahead, and words its reasons its own way)
#   3. the fuzz seeds: the same files refused with both (messages may differ)
#   4. `info` exits 2 with both on every file refused for its deflate data
#
# pass: sanitizer (both inflaters, under the sanitizers; the verdicts do not
# depend on the build, and loader_real reads every real file with the
# release build)
. tests/lib.sh
TB="$ROOT/$HLOSCOPE_BUILD/tests"
if [ ! -x "$TB/hloscope-zlib" ]; then
	ok "inflate paths: this build uses zlib only, nothing to compare ($("$HLOSCOPE" --version | grep '^inflater'))"
	exit 0
fi
need numpy || exit 0
v1=$("$HLOSCOPE" --version | grep '^inflater') v2=$("$TB/hloscope-zlib" --version | grep '^inflater')
case "$v1|$v2" in
*isa-l*"|"*zlib*) ok "the two builds: $v1 / $v2" ;;
*) bad "inflater names" "'$v1' / '$v2'" ;;
esac

# 1. Same bytes.
"$PY" - "$T/big.npz" <<'EOF' || bad numpy_file "numpy could not write it"
import sys
import numpy as np
rng = np.random.default_rng(7)
ncf = rng.integers(-1, 6, size=(400, 300, 18)).astype(np.float32)
ncf[:, ::3] = -1
np.savez_compressed(sys.argv[1], node_config_feat=ncf,
                    noise=rng.integers(0, 255, size=3_000_000).astype(np.uint8),
                    empty=np.zeros(0, np.int64))
EOF
{ [ -d "$DATA/npz" ] && find "$DATA/npz" -name '*.npz' | sort; echo "$T/big.npz"; } >"$T/files"
# Python's zipfile writes every file's members to $T/py.N (one python for all).
"$PY" - "$T/files" "$T" <<'EOF'
import sys, zipfile
for n, f in enumerate(open(sys.argv[1]).read().splitlines(), 1):
    with open("%s/py.%d" % (sys.argv[2], n), "wb") as out:
        try:
            z = zipfile.ZipFile(f)
            for i in z.infolist():
                out.write(z.read(i))
        except Exception:
            pass
EOF
n=0 nbad=0
while read -r f; do
	n=$((n + 1))
	"$TB/zipcat" "$f" >"$T/a" 2>"$T/err.a"
	ra=$?
	"$TB/zipcat_zlib" "$f" >"$T/b" 2>"$T/err.b"
	rb=$?
	if [ "$ra" -ne 0 ] || [ "$rb" -ne 0 ]; then
		bad "zipcat $f" "exit $ra / $rb: $(cat "$T/err.a" "$T/err.b" | head -c 300)"
	elif ! cmp -s "$T/a" "$T/b" || ! cmp -s "$T/a" "$T/py.$n"; then
		bad "zipcat $f" "ISA-L, zlib and Python's zipfile give different bytes"
	else
		continue
	fi
	nbad=$((nbad + 1))
done <"$T/files"
[ "$nbad" -eq 0 ] && ok "$n files: ISA-L, zlib and Python's zipfile give the same bytes"

# 2. Same verdicts on the corrupt corpus.
use_fixtures corrupt || exit 1
cd "$FIX_CORRUPT" || exit 1
norm() { sed -E 's/near compressed byte [0-9]+ \(.*\)$/near compressed byte N (reason)/' "$@"; }
cut -f2 manifest | xargs -n 400 "$HLOSCOPE" check >"$T/isal.out" 2>"$T/isal.err"
cut -f2 manifest | xargs -n 400 "$TB/hloscope-zlib" check >"$T/zlib.out" 2>"$T/zlib.err"
norm "$T/isal.out" >"$T/isal.n"
norm "$T/zlib.out" >"$T/zlib.n"
total=$(wc -l <manifest)
if [ "$(wc -l <"$T/isal.n")" -ne "$total" ] || [ "$(wc -l <"$T/zlib.n")" -ne "$total" ]; then
	bad "check corrupt corpus" "wanted $total lines each, got $(wc -l <"$T/isal.n") / $(wc -l <"$T/zlib.n")"
elif ! cmp -s "$T/isal.n" "$T/zlib.n"; then
	bad "check corrupt corpus" "verdicts differ: $(diff "$T/isal.n" "$T/zlib.n" | head -6 | tr '\n' '|')"
else
	ok "check on $total corrupt files: same verdict and message with ISA-L and zlib ($(grep -ac '^OK ' "$T/isal.n") OK, $(grep -avc '^OK ' "$T/isal.n") refused)"
fi

# 3. The fuzz seeds: the same files refused.  Here messages may differ: on a
#    stream damaged a little after a member's start, ISA-L (which decodes up
#    to 64 KiB ahead) reports the damage, zlib first hands out the bytes
#    before it, which may already fail the .npy header or the declared size
#    (tests/fuzz/corpus/npz/inflate-damage-ahead-*.npz).
verdicts() { # BINARY: "path OK" / "path refused" per seed
	(cd "$ROOT/tests/fuzz/corpus/npz" && ls | xargs "$1" check 2>/dev/null) |
		awk '/^OK / { print substr($0, 4), "OK"; next } { sub(/: .*/, ""); print $0, "refused" }'
}
verdicts "$HLOSCOPE" >"$T/seeds.isal"
verdicts "$TB/hloscope-zlib" >"$T/seeds.zlib"
if [ -s "$T/seeds.isal" ] && cmp -s "$T/seeds.isal" "$T/seeds.zlib"; then
	ok "$(wc -l <"$T/seeds.isal") fuzz seeds: the same ones refused with ISA-L and zlib"
else
	bad "fuzz seeds" "verdicts differ: $(diff "$T/seeds.isal" "$T/seeds.zlib" | head -6 | tr '\n' '|')"
fi

# 4. `info` one by one on every file refused for its deflate data: the same
#    exit status (2) with both.
grep -a -E 'corrupt deflate|compressed data|deflate stream|inflates to more' "$T/isal.n" |
	sed 's/: .*//' >"$T/deflate_refused"
n=0 nbad=0
while read -r p; do
	n=$((n + 1))
	"$HLOSCOPE" info "$p" >/dev/null 2>&1
	ra=$?
	"$TB/hloscope-zlib" info "$p" >/dev/null 2>&1
	rb=$?
	if [ "$ra" -ne "$rb" ] || [ "$ra" -ne 2 ]; then
		bad "info $p" "exit $ra with ISA-L, $rb with zlib (wanted 2)"
		nbad=$((nbad + 1))
	fi
done <"$T/deflate_refused"
[ "$n" -ge 10 ] || bad "deflate damage" "only $n corrupt files are refused for their deflate data"
[ "$nbad" -eq 0 ] && ok "info on $n files with damaged deflate data: exit 2 with ISA-L and zlib"
exit 0
