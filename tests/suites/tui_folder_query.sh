# The explorer's `:` line in the dataset view: queries over every graph of
# the folder (tui/query.c, query/folder.c), scripted at 100x30 with golden
# screens; Enter on a result row opens its graph (at its node or config);
# skipped files in a second pane.  In a terminal (tmux): progress on the
# status line and Ctrl-C stopping a long run while the explorer stays up.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

tui_run "folder query session ends cleanly" "$DATA" npz <<'EOF'
:count by opcode limit 5
golden folder_count_by_opcode
q
:graphs where count(opcode = convolution) > 0 sort by nodes desc show name, kind, split, nodes, count(opcode = convolution)
golden folder_graphs
Enter
has Enter on a graph row opens its overview => unet3d  layout graph
q
has back to the folder result => 3 of 7 graphs match
q
:nodes where opcode = convolution sort by shape_dimensions_product desc limit 3
golden folder_nodes
j
Enter
has Enter on a node row opens that node of that graph => node 595  convolution
q
:count by elem
has a query from a folder result runs on the folder too => over 5268 nodes in 7 graphs
q
q
:configs where runtime_rank = 1 sort by runtime desc show config, runtime
Enter
has Enter on a config row opens that config of its graph => config 209
q
q
:show 3
has a command about one graph says so => works on one graph, and this is a folder
:count by shap
has a usage error points at the column => unknown field 'shap'
Q
EOF

# Unreadable files: counted on the status line and in the note, listed on Tab.
mkdir -p "$T/set/good" "$T/set/bad"
ln -s "$DATA/npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz" "$T/set/good/inception.npz"
printf 'not a zip at all' >"$T/set/bad/garbage.npz"
head -c 3000 "$DATA/npz/layout/xla/default/train/unet3d.npz" >"$T/set/bad/truncated.npz"
tui_run "folder query with bad files ends cleanly" "$T" set <<'EOF'
:count by opcode
has the status line counts them => 2 files could not be read and were skipped: Tab lists them
has the note too => 2 files skipped (Tab lists them)
Tab
golden folder_skipped
Tab
has Tab returns to the result => over 2 nodes in 1 graph
Q
EOF

# In a terminal: progress on the status line, Ctrl-C stops the run, the
# explorer stays up and says so.
tui_tmux || exit 0
mkdir -p "$T/many"
"$PY" -c "
import os, sys
for i in range(2000):
    os.symlink(sys.argv[1], os.path.join(sys.argv[2], 'u%04d.npz' % i))
" "$DATA/npz/layout/xla/default/train/unet3d.npz" "$T/many"
tui_start "$T" many
tui_send : 'stats cost' Enter
tui_wait "progress on the status line" "/2,000 files,"
tui_send C-c
tui_wait "Ctrl-C stops the query, the explorer stays" "stopped after"
tui_wait "... in the dataset view" "2000 graphs under many"
tui_send Q
tui_finish "Q after a stopped query: exit 0" 0
