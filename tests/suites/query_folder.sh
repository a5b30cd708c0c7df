# query_folder: `hloscope query DIR` over every graph of a folder
# (query/folder.c).  Results against numpy over the real files and the demo
# data together (tests/query/numpy_folder.py); the same output whatever the
# thread count; unreadable files listed and skipped (status 2, 0 with
# --skip-bad); only the arrays a query needs are read (a damaged array
# another query needs does not matter); Ctrl-C stops a run cleanly.
. tests/lib.sh

MIX="$T/mix"
mkdir -p "$MIX"
ln -s "$DATA/npz" "$MIX/real"
if use_demo; then
	ln -s "$DEMO/npz" "$MIX/demo"
fi

# 1. numpy
if need numpy; then
	"$PY" tests/query/numpy_folder.py "$MIX"
fi

# 2. The thread count changes nothing in the output.
for q in 'count by opcode' 'stats users, cost where opcode != parameter' \
	'nodes where users > 2 sort by elements desc limit 40' 'nodes where rank = 4' \
	'configs sort by runtime desc limit 30' 'graphs where count(opcode = fusion) >= 0 sort by edges'; do
	"$HLOSCOPE" query "$MIX" --csv --threads 1 "$q" >"$T/t1" 2>"$T/e1"
	r1=$?
	same=1
	for n in 2 7; do
		"$HLOSCOPE" query "$MIX" --csv --threads $n "$q" >"$T/tn" 2>>"$T/e1" || same=0
		cmp -s "$T/t1" "$T/tn" || same=0
	done
	if [ $r1 -eq 0 ] && [ $same = 1 ] && [ -s "$T/t1" ] && no_sanitizer_report "$T/e1"; then
		ok "query folder: threads 1, 2, 7 give the same output: $q"
	else
		bad "query folder: threads 1, 2, 7 give the same output: $q" \
			"exit $r1: $(head -c 200 "$T/e1"; diff "$T/t1" "$T/tn" | head -5)"
	fi
done

# 3. Unreadable files: listed on stderr and skipped; status 2, or 0 with --skip-bad.
BAD="$T/bad"
mkdir -p "$BAD/layout/xla/random/train" "$BAD/junk"
ln -s "$DATA/npz/layout/xla/random/train/openai_v0_rnn_optimized.npz" "$BAD/layout/xla/random/train/rnn.npz"
printf 'not a zip' >"$BAD/junk/garbage.npz"
: >"$BAD/junk/empty.npz"
ln -s "$T/nowhere.npz" "$BAD/junk/dangling.npz"
"$HLOSCOPE" query "$DATA/npz/layout/xla/random/train/openai_v0_rnn_optimized.npz" \
	'count by opcode' >"$T/want" 2>&1
expect_status 2 "query folder: skipped files make the status 2" "$HLOSCOPE" query "$BAD" 'count by opcode'
if grep -q '^hloscope query: skipped junk/garbage.npz: not a zip' "$T/err" &&
	grep -q '^hloscope query: skipped junk/empty.npz: ' "$T/err" &&
	grep -q '^hloscope query: skipped junk/dangling.npz: ' "$T/err" && [ "$(wc -l <"$T/err")" -eq 3 ]; then
	ok "query folder: each skipped file listed once with its reason"
else
	bad "query folder: each skipped file listed once with its reason" "$(head -c 400 "$T/err")"
fi
if sed 's/ in 1 graph//' "$T/out" | cmp -s - "$T/want"; then
	ok "query folder: the good file's counts, as alone"
else
	bad "query folder: the good file's counts, as alone" "$(diff "$T/want" "$T/out" | head -5)"
fi
expect_status 0 "query folder: --skip-bad makes it 0" "$HLOSCOPE" query "$BAD" --skip-bad 'count by opcode' 'graphs'
if [ "$(grep -c '^hloscope query: skipped' "$T/err")" -eq 3 ]; then
	ok "query folder: --skip-bad still lists them, once for two queries"
else
	bad "query folder: --skip-bad still lists them, once for two queries" "$(head -c 400 "$T/err")"
fi

# 4. A query reads only the arrays it needs: a damaged node_config_feat only
# matters to what needs the node configs, a damaged node_feat only to node
# features.
"$PY" - "$DATA/npz/layout/xla/random/train/openai_v0_rnn_optimized.npz" "$T/sel" <<'PYEOF'
import os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
data = open(src, "rb").read()
with zipfile.ZipFile(src) as z:
    for member, name in (("node_config_feat.npy", "ncf"), ("node_feat.npy", "feat")):
        info = z.getinfo(member)
        b = bytearray(data)
        # the local header's name and extra lengths give the data's offset
        start = info.header_offset + 30 + int.from_bytes(b[info.header_offset + 26:info.header_offset + 28], "little") \
            + int.from_bytes(b[info.header_offset + 28:info.header_offset + 30], "little")
        for k in range(start + info.compress_size // 2, start + info.compress_size // 2 + 64):
            b[k] ^= 0x5a
        open(os.path.join(out, "bad_%s.npz" % name), "wb").write(bytes(b))
PYEOF
expect_status 0 "query folder: count by opcode reads node_opcode only" \
	"$HLOSCOPE" query "$T/sel" 'count by opcode' 'graphs show file, nodes, edges, configs, runtime_max'
expect_status 2 "query folder: stats rank needs node_feat" "$HLOSCOPE" query "$T/sel" 'stats rank'
if grep -q 'skipped bad_feat.npz: .*node_feat' "$T/err" && ! grep -q bad_ncf "$T/err"; then
	ok "query folder: node_feat damage skips that file alone"
else
	bad "query folder: node_feat damage skips that file alone" "$(head -c 300 "$T/err")"
fi
expect_status 2 "query folder: predicted needs node_config_feat" "$HLOSCOPE" query "$T/sel" \
	'configs show config, predicted'
if grep -q 'skipped bad_ncf.npz: .*node_config_feat' "$T/err"; then
	ok "query folder: node_config_feat damage named"
else
	bad "query folder: node_config_feat damage named" "$(head -c 300 "$T/err")"
fi

# 5. Usage.
expect_status 1 "query folder: --threads 0 is bad usage" "$HLOSCOPE" query "$MIX" --threads 0 'graphs'
expect_status 1 "query folder: a command about one graph is refused" "$HLOSCOPE" query "$MIX" 'show 3'

# 6. Ctrl-C: the query stops, writes nothing, and the status is 130.  The
# folder holds enough graphs that the run outlasts the first progress line.
"$PY" -c "
import os, sys
for i in range(3000):
    os.symlink(sys.argv[1], os.path.join(sys.argv[2], 'u%04d.npz' % i))
" "$DATA/npz/layout/xla/default/train/unet3d.npz" "$T" 2>/dev/null || true
mkdir -p "$T/many"
mv "$T"/u*.npz "$T/many/"
"$HLOSCOPE" query "$T/many" --threads 1 --progress 'stats cost' >"$T/int.out" 2>"$T/int.err" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q 'files,' "$T/int.err"; do
	sleep 0.05
	i=$((i + 1))
done
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 130 ] && [ ! -s "$T/int.out" ] && grep -q 'stopped after [0-9]* of 3000 files' "$T/int.err" &&
	no_sanitizer_report "$T/int.err"; then
	ok "query folder: Ctrl-C stops it: status 130, no output"
else
	bad "query folder: Ctrl-C stops it: status 130, no output" "exit $rc; $(head -c 300 "$T/int.err")"
fi
