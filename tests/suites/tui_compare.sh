# The explorer's comparison view (tui/view_compare.c), scripted at 100x30:
# opened from the configs view with marks, with the prompt and with
# `:compare`, on layout and tile files, unlabeled ones and two files of one
# graph; golden screens in tests/golden/tui/compare_*.txt.  The model's
# numbers (predicted runtimes and ranks, per-node contributions) print as
# "#" (HLOSCOPE_MASK_MODEL): they belong to the model and
# tests/suites/compare.sh checks them.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

N=npz
UNET=$N/layout/xla/default/train/unet3d.npz
TILE=$N/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz
TILET=$N/tile/xla/test/0a3585c3e686065389227fa374175e48.npz

# 1. Marks A and B in the configs view, C opens the comparison.
tui_run "compare session ends cleanly" "$DATA" "$UNET" <<'EOF'
c
m
j
m
C
golden compare_marks
has header: measured ratio => B/A  measured 1.000001 (+0.000135%)
has summary line => 46 of 56 configurable nodes differ; opcodes: convolution 46; computation: computation.61 (46)
a
has a shows every node => every configurable node (56 rows)
has unchanged rows are listed => 56/56
a
has a again: differing only => differing nodes only (46 rows)
:
type sort contribution
Enter
has :sort contribution => sorted by contribution, largest first
q
has q goes back to the configs => marks: A=0 B=1
Q
EOF

# 2. :compare best worst; neighbours pane; Enter opens the highlighted drawing.
tui_run "compare errors end cleanly" "$DATA" "$UNET" <<'EOF'
c
:
type compare best worst
Enter
j
j
j
golden compare_best_worst
has neighbours of the cursor's node => Configurable neighbours of node 765
has a neighbour needs a copy in A only => user      1477 convolution     2 kernel {0,4}        {4*,0*}      copy         ok
Enter
has Enter opens the drawing => Drawing 765
has the changed nodes are highlighted => 21 changed nodes highlighted
has highlighted boxes are drawn => ╔
q
Tab
Enter
has Enter on a neighbour outside the rows draws it => Drawing 784
q
Tab
:
type compare 0 5000
Enter
has an index out of range is a message => config 5000 out of range
q
:
type compare 0 5000
Enter
has an index out of range is a message => B: config 5000 out of range: unet3d.npz has 1159 configs (0..1158)
C
has C without marks asks for B => compare config 0 with (best, worst, default, N [FILE]): best
C-u
type default
Enter
has no default config is a message => B: unet3d.npz has no default config
Q
EOF

# 3. Tile: the 24 values and the kernel's nodes.
tui_run "tile compare ends cleanly" "$DATA" "$TILET" <<'EOF'
c
:
type compare 0 5
Enter
golden compare_tile_unlabeled
has unlabeled: runtimes hidden => runtime hidden (unlabeled)
has unlabeled: the ratio says why => measured: hidden (unlabeled file)
Tab
Enter
has Enter on a kernel node draws it => Drawing 0
q
q
:
type compare best 0
Enter
has best on an unlabeled file is a message => compare: A: 'best' needs measured runtimes, but 0a3585c3e6
Q
EOF

tui_run "labeled tile compare ends cleanly" "$DATA" "$TILE" <<'EOF'
c
:
type compare 0 best
Enter
golden compare_tile
Q
EOF

# 4. Two files of one graph (numpy-written, as in compare.sh).
"$PY" - "$T" <<'PYEOF'
import sys
import numpy as np
out = sys.argv[1]
ops = np.array([63, 63, 26, 2, 26, 75, 34], np.uint8)
dims = [[2, 8, 8, 4], [3, 3, 4, 4], [2, 8, 8, 4], [2, 8, 8, 4], [2, 8, 8, 4], [2, 8, 32], [2, 8, 32]]
feat = np.zeros((7, 140), np.float32)
for i, d in enumerate(dims):
    feat[i, 13] = 1
    feat[i, 21:21 + len(d)] = d
    feat[i, 27], feat[i, 28] = sum(d), np.prod(d)
    feat[i, 134:134 + len(d)] = list(range(len(d) - 1, -1, -1))
edges = np.array([[2, 0], [2, 1], [3, 2], [3, 0], [4, 3], [4, 1], [5, 4], [6, 5]], np.int64)
lay = lambda *g: sum((list(x) + [-1] * (6 - len(x)) for x in g), [])
row = {"id": lay([3, 2, 1, 0], [3, 2, 1, 0], [3, 2, 1, 0]), "tr": lay([3, 2, 1, 0], [0, 1, 2, 3], [3, 2, 1, 0]),
       "d": lay([2, 1, 0], [2, 1, 0], []), "r": lay([0, 1, 2], [2, 1, 0], []), "def": [-1] * 18}
def save(name, configs, runtimes, e=edges):
    np.savez_compressed(out + "/" + name, node_feat=feat, node_opcode=ops, edge_index=e,
                        node_config_ids=np.array([2, 4, 6], np.int64),
                        node_config_feat=np.array([[row[k] for k in c] for c in configs], np.float32),
                        config_runtime=np.array(runtimes, np.int64), node_splits=np.array([[0, 4, 7]], np.int64))
save("prog_default.npz", [["def", "def", "def"], ["id", "id", "d"], ["id", "tr", "r"]], [1000, 900, 1300])
save("prog_random.npz", [["id", "tr", "d"], ["id", "id", "r"]], [1100, 950])
e2 = edges.copy(); e2[3] = [3, 1]
save("prog_other.npz", [["id", "id", "d"]], [5], e2)
PYEOF
tui_run "two-file compare ends cleanly" "$T" prog_default.npz <<'EOF'
c
has the configs view names the default config => default config: 0
C
C-u
type default
Enter
has default against itself: nothing differs => no configurable node differs
q
:
type compare 2 0 prog_random.npz
Enter
golden compare_two_files
has two files: B's file is named => file prog_random
q
:
type compare 0 0 prog_other.npz
Enter
has another graph is a message => compare: not the same graph: edge 3 -> 0 (user -> operand) is in prog_default.npz
:
type compare 0 0 missing.npz
Enter
has a missing file is a message => missing.npz
Q
EOF
