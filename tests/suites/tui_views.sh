# The explorer's views on the real files, driven in tmux at 100x30 and
# compared with golden screens (tests/golden/tui/).  `make goldens` rewrites
# them; review the diff.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

N=npz
UNET=$N/layout/xla/default/train/unet3d.npz
RNN=$N/layout/xla/random/train/openai_v0_rnn_optimized.npz
TILE=$N/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz
TILET=$N/tile/xla/test/0a3585c3e686065389227fa374175e48.npz

# Overview: header, opcode table, computations; Tab switches panes.
tui_start "$DATA" "$UNET"
tui_screen overview_layout
tui_keys Tab j
tui_screen overview_comps
# Enter on computation 1 lists its nodes
tui_keys Enter
tui_screen nodes_of_comp
tui_keys q
tui_keys Q
tui_finish "overview quits with Q" 0

# Node table: all nodes, sort, filter, search, frequency, added column.
tui_start "$DATA" "$UNET"
tui_keys t
tui_screen nodes
tui_keys l l l l l ']' g
tui_screen nodes_sort_users_desc
tui_keys '['
tui_has "sort ascending marks the column" "user▲"
tui_keys g
tui_keys '\'
tui_type 'opcode=convolution and users>1'
tui_keys Enter
tui_screen nodes_filter
tui_keys '\' C-u Enter
tui_has "empty filter clears it" "2774/2774"
tui_keys g h h h h '/'
tui_type reduce-window
tui_keys Enter
tui_screen nodes_search
first=$(tui_row)
tui_keys n
second=$(tui_row)
if [ "$second" != "$first" ]; then ok "n finds the next match"; else bad "n finds the next match" "still at $first"; fi
tui_keys N
if [ "$(tui_row)" = "$first" ]; then ok "N finds the previous match"; else
	bad "N finds the previous match" "at $(tui_row), wanted $first"; fi
tui_keys '/'
tui_type no-such-opcode
tui_keys Enter
tui_has "a failed search says so" "'no-such-opcode' not found in column opcode"
tui_keys F
tui_screen freq_opcode
tui_keys j Enter
tui_screen freq_drill_multiply
tui_keys '+'
tui_type shape_dimensions_product
tui_keys Enter
tui_screen nodes_added_column
tui_keys '-'
tui_has "- hides the column" "column shape_dimensions_product hidden"
tui_keys :
tui_type 'column no_such_feature'
tui_keys Enter
tui_has "an unknown column is an error" "no column 'no_such_feature'"
tui_keys :
tui_type "write $T/nodes.csv"
tui_keys Enter
if [ -f "$T/nodes.csv" ] && [ "$(wc -l <"$T/nodes.csv")" -eq 501 ] &&
	head -1 "$T/nodes.csv" | grep -q '^id,opcode,shape,comp,ops,users,cfg,cost$'; then
	ok ":write saves the filtered table as CSV"
else
	bad ":write saves the filtered table as CSV" "$(head -c 200 "$T/nodes.csv" 2>&1)"
fi
tui_keys Q
tui_finish "node table session ends cleanly" 0

# Node detail: features, operands/users, jump and back/forward.
tui_start "$DATA" "$UNET"
tui_keys t :
tui_type 'goto 603'
tui_keys Enter Enter
tui_screen node_603
tui_keys j Enter
tui_screen node_jump
tui_keys '<'
tui_has "< goes back in the jump history" "node 603  convolution"
tui_keys '>'
tui_has "> goes forward" "jump 2/2"
tui_keys Tab
tui_screen node_features_pane
tui_keys q
tui_has "q pops back to the node table" "hloscope › unet3d › Nodes"
tui_keys Q
tui_finish "node detail session ends cleanly" 0

# Configs (layout): runtimes, ranks, predictions, histogram; values; marks.
tui_start "$DATA" "$UNET"
tui_keys c
tui_screen configs_layout
tui_keys Enter
tui_screen config_values_layout
tui_keys q m j m
tui_has "two marks, A and B" "marks: A=0 B=1"
tui_keys l ']' g
tui_screen configs_sort_runtime_desc
tui_keys Q
tui_finish "configs session ends cleanly" 0

tui_start "$DATA" "$RNN"
tui_keys c
tui_screen configs_layout_random
tui_keys Q
tui_finish "random layout configs" 0

# Tile: overview, configs with normalized runtimes, the 24 values.
tui_start "$DATA" "$TILE"
tui_screen overview_tile
tui_keys c
tui_screen configs_tile
tui_keys Enter
tui_screen config_values_tile
tui_keys Q
tui_finish "tile session ends cleanly" 0

tui_start "$DATA" "$TILET"
tui_keys c
tui_screen configs_tile_unlabeled
tui_keys Q
tui_finish "unlabeled tile configs" 0

# Help of a view, generated from the command table.
tui_start "$DATA" "$UNET"
tui_keys t '?'
tui_screen help_nodes
tui_keys q c '?' G
tui_has "the configs help lists m" ":mark"
tui_keys q q q '?'
tui_has "overview help lists no mark" "Keys and commands of the overview view"
if tui_capture | grep -q ':mark'; then bad "help is per view" "overview help lists :mark"; else
	ok "help is per view"; fi
tui_keys Q
tui_finish "help session ends cleanly" 0

# The `:` line: view commands, queries, errors with the column.
tui_start "$DATA" "$UNET"
tui_keys :
tui_type 'nodes where opcode = convolution sort by id limit 5'
tui_keys Enter
tui_has "a query opens a result table" "53 of 2774 nodes"
tui_has "result rows are listed" "199 convolution"
tui_keys Enter
tui_has "Enter on a result row opens its node" "node 199  convolution"
tui_keys q q :
tui_type 'nodes where shap > 3'
tui_keys Enter
tui_has "a query error names the column" "unknown field 'shap' at column 13"
tui_keys :
tui_type 'frobnicate'
tui_keys Enter
tui_has "an unknown command is an error" "frobnicate"
tui_keys :
tui_type 'sort count desc'
tui_keys Enter
tui_has ":sort COL desc sorts" "sorted by count, descending"
tui_keys :
tui_type 'quit'
tui_keys Enter
tui_finish ":quit quits" 0

# Dataset: a folder, sorting, opening a graph and coming back.
tui_start "$DATA" "$N"
tui_screen dataset
tui_keys l l l l l ']' g
tui_screen dataset_sort_nodes
tui_keys Enter
tui_has "Enter opens the selected graph" "unet3d  layout graph"
tui_keys q
tui_has "q returns to the dataset" "7 graphs under npz"
tui_keys '\'
tui_type 'kind=tile'
tui_keys Enter
tui_has "filter on the dataset" "4 of 7 rows: kind=tile"
tui_keys Q
tui_finish "dataset session ends cleanly" 0

# Graph drawing: Graphviz layout drawn in the terminal, moves, export.
tui_start "$DATA" "$UNET"
tui_keys t :
tui_type 'goto 8'
tui_keys Enter v
tui_screen drawing_8
tui_keys k
cur=$(tui_capture | sed -n 's/.*cursor: node \([0-9]*\).*/\1/p' | head -1)
if [ -n "$cur" ] && [ "$cur" != 8 ]; then ok "the cursor moves to another node"; else
	bad "the cursor moves to another node" "cursor '$cur'"; fi
tui_keys Enter
tui_has "Enter re-centres on the cursor" "2 steps around node $cur"
tui_keys :
tui_type "export $T/region.dot"
tui_keys Enter
if [ -f "$T/region.dot" ] && grep -q digraph "$T/region.dot"; then ok "e exports the drawing as DOT"; else
	bad "e exports the drawing as DOT" "no $T/region.dot"
fi
tui_keys :
tui_type "export $T/region.txt"
tui_keys Enter
tui_has "export refuses an unknown format" "must end in .dot"
tui_keys i
tui_has "i opens the node under the cursor" "node $cur  "
tui_keys Q
tui_finish "drawing session ends cleanly" 0
