# The explorer on HLO input (tests/data/hlo): instruction names in the node
# tables, the node detail with its metadata, the computations with their
# roles in the overview, Enter into a fusion and back.  Scripted at 100x30
# and compared with golden screens (tests/golden/tui/hlo_*.txt); model
# numbers print as "#".  `make goldens` rewrites them; review the diff.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/tui_lib.sh"

H=$ROOT/tests/data/hlo
JIT=jit_f_softmax_allreduce_gpu_before_fusion.hlo

# Overview: module, fusion count, computations by size with their roles and
# callers; Enter on a computation lists its nodes.
tui_run "HLO overview session ends cleanly" "$H" "$JIT" <<'EOF2'
golden hlo_overview
has the header names the module => module jit_f
has ... and counts the fusions => 6 computations  2 fusions
Tab
Enter
golden hlo_comp_nodes
has the computation's nodes are its own => 5/5
q
:splits
has the node_splits segments are splits => Splits (node_splits)
q
Q
EOF2

# Node table: names, opcodes as written, shapes with their layout; Enter on
# a fusion goes into its computation, q comes back to the same row.
tui_run "HLO node table session ends cleanly" "$H" "$JIT" <<'EOF2'
t
golden hlo_nodes
G
Enter
golden hlo_fusion_body
q
has back returns to the fusion's row => 24/24
i
has i opens the detail of a fusion => fusion kind kCustom  calls triton_softmax_computation.2 (fusion)
has the calls are in the list => calls
G
Enter
has Enter on a call goes into it => triton_softmax_computation.2 (fusion)
q
has ... and back to the detail => Node 23
q
+
type op_name
Enter
has HLO fields can be added as columns => op_name
Q
EOF2

# Node detail with metadata: op_type, op_name, source file and line.
tui_run "HLO node detail session ends cleanly" "$H" bert_dp_graph_3_SyncTensorsGraph.hlo <<'EOF2'
t
:goto multiply.1388
has goto takes a name => 1001/1226
i
golden hlo_node_metadata
has shapes carry their layout => f32[16,16]{1,0}
:goto add.1389
has ... in the detail too => node 1001  add.1389
:goto no-such-node.7
has an unknown name says so => goto: no node 'no-such-node.7' (ids are 0..1225, or a name such as
Q
EOF2

# An HloModuleProto: the fusions' computations by name.
tui_run "HloModuleProto session ends cleanly" "$H" tpu_op_fusion.261.HloModuleProto.pb <<'EOF2'
has a proto's overview counts its fusions => 3 fusions
:computations
has the computations view lists them by name => fused_computation
Q
EOF2

# An opcode the learned list lacks shows as written; the custom-call target
# and the sharding are in the detail.
cat >"$T/new_op.hlo" <<'EOF2'
HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main {
  p = f32[4]{0} parameter(0)
  q = f32[4]{0} my-new-op(p), metadata={op_type="X" op_name="y/z"}
  ROOT r = f32[4]{0} custom-call(q), custom_call_target="MyTarget", sharding={replicated}
}
EOF2
tui_run "unknown opcode session ends cleanly" "$T" new_op.hlo <<'EOF2'
has the overview counts an unknown opcode by its name => my-new-op
t
has the node table writes it as written => q                  my-new-op
j
Enter
has ... and so does the detail => node 1  q  my-new-op  f32[4]{0}
has metadata => op_type X  op_name y/z
q
G
i
has custom-call target and sharding => custom-call target MyTarget  sharding {replicated}
Q
EOF2

# On a bare .npz the names are derived and the fields it lacks are left out.
tui_run "npz node detail session ends cleanly" "$DATA" npz/layout/xla/default/train/unet3d.npz <<'EOF2'
:show 603
has a derived name => node 603  convolution.603  convolution
has a derived computation => computation computation.61 (while-body, nodes 183..2309)
lacks no metadata line => op_type
lacks no sharding line => sharding
lacks no fusion line => fusion kind
Q
EOF2

# A while calls two computations: Enter lists them to pick from.
tui_run "while session ends cleanly" "$DATA" npz/layout/xla/default/train/unet3d.npz <<'EOF2'
t
:goto while.2546
Enter
has a node calling several computations lists them => 2 computations: pick one, then Enter
has ... body and condition => computation.62             while-condition      4 compare.2313
Enter
has Enter opens the one picked => computation.61 (while-body)                                                               2127/2127
q
q
has back at the while's row => 2547/2774
Q
EOF2

# Node detail of HLO: the operand a fusion body's parameter stands for and
# `u` to it; a body's root returns to its caller; a collective's replica
# groups, channel and bytes, its attributes as written and its HLO line;
# the collectives view from the overview (r); a plain module says it has no
# configs.  (tui_hlo_check.sh checks the same on every module against the
# text.)
tui_run "HLO parameters and callers session ends cleanly" "$H" "$JIT" <<'EOF2'
:show parameter_0.2
has a fusion body's parameter names its caller's operand => parameter 0: operand 0 of triton_softmax.2, exponential.1.0
has ... listed under the caller => caller      23 triton_softmax.2
u
has u goes to that operand => node 22  exponential.1.0  exponential
has ... and says so => parameter 0 stands for operand 0 of triton_softmax.2
<
:goto divide.3
has a body's root names its caller => root: returns to triton_softmax.2
:goto Arg_0.5
has a reducer's parameter is no operand => parameter 0, called by all-reduce.1.0: an element it combines, no operand
:goto all-reduce.1.0
golden hlo_node_collective
has the collective line => collective  replica_groups {{0,1,2,3,4,5,6,7}}  1 group of 8  channel_id 1  128 B per device
has the attributes as written => replica_groups        {{0,1,2,3,4,5,6,7}}
has the HLO line => HLO all-reduce.1.0 = f32[32]{0} all-reduce(param), channel_id=1
:goto trito_softmax.3
has goto suggests the closest name => goto: no node 'trito_softmax.3' (did you mean 'triton_softmax.3'?)
o
r
golden hlo_collectives
has r lists the collectives => 20 all-reduce.1.0  all-reduce {{0,1,2,3,4,5,6,7}}      1          8       1        128 B
q
c
has a plain module has no configs => no configs: jit_f_softmax_allreduce_gpu_before_fusion is a plain HLO module
Q
EOF2

# / in the node detail's operand pane searches the names.
tui_run "operand pane search session ends cleanly" "$H" "$JIT" <<'EOF2'
:show triton_softmax.3
/
type exponential
Enter
has / finds a name in the operand pane =>  2/3
lacks ... not the id column => not found in column
Q
EOF2

# Ctrl-C while the explorer works (a script's `interrupt` raises SIGINT as
# the next key's work starts) stops that work and keeps the explorer and its
# views; the key works again after; twice, it quits with 130.
tui_run "Ctrl-C stops the work session ends cleanly" "$H" openxla_hlo_llama3_8b_cp_bf16_1x4.hlo <<'EOF2'
interrupt
y
has Ctrl-C stops finding the layers => stopped finding the layers
lacks ... and opens no view => Layers:
y
has y then opens them => Layers:
interrupt
:nodes where opcode = add
has a query is stopped too => stopped after 0 of 2325 rows
has ... and the views stay => Layers:
:nodes where opcode = add
has then it runs => of 2325 nodes match
Q
EOF2
TUI_STATUS=130 tui_run "a second Ctrl-C quits: exit 130" "$H" openxla_hlo_llama3_8b_cp_bf16_1x4.hlo <<'EOF2'
interrupt
interrupt
y
EOF2

# A collective-permute's devices are its source_target_pairs, not groups.
tui_run "collective-permute session ends cleanly" "$H" openxla_hlo_llama3_8b_cp_bf16_1x4.hlo <<'EOF2'
:show ppermute.3
has the node detail shows its pairs => collective  source_target_pairs {{0,1},{1,2},{2,3},{3,0}}  4 pairs  channel_id 4
:collectives
\
type opcode = collective-permute
Enter
has the collectives view shows its pairs => ppermute.3    collective-perm… pairs {{0,1},{1,2},{2,3}
lacks ... and no replica groups => every device
Q
EOF2

# An instruction used twice is two operands, each with its index.
cat >"$T/twice.hlo" <<'EOF2'
HloModule twice

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  ROOT m = f32[4]{0} multiply(y, x), metadata={op_name="a"}
  sq = f32[4]{0} multiply(x, x)
}
EOF2
tui_run "repeated operand session ends cleanly" "$T" twice.hlo <<'EOF2'
:show sq
has the first use => operand 0    0 x
has the second use => operand 1    0 x
has two operands => 2 operands  0 users
:goto m
has in the instruction's order, not sorted => operand 0    1 y
:goto x
has a user once however often it uses the node => 2 users
Q
EOF2

# Names over 40 characters are shortened in the middle on screen (further
# when a column is squeezed), whole in :write (and in queries).
TUI_W=160
tui_run "long names session ends cleanly" "$H" cut_openxla_msa_jit_run_benchmark.hlo <<'EOF2'
t
has a long name is shortened in the middle => ragged_latency_optim…ut_feature_matmul.1
lacks ... not shown whole => ragged_latency_optimized_reduce_scatter_out_feature_matmul.1
:write $T/long.csv
:show copy.22
has ... in the detail's list too => ragged_latency_optim…ut_feature_matmul.1
resize 100 30
:goto 10
has ... and its header => node 10  ragged_latency_optim…ut_feature_matmul.1  custom-call
t
has a squeezed column cuts it further, in the middle too => ragged_latency…ature_matmul.1
Q
EOF2
TUI_W=100
if grep -q ',ragged_latency_optimized_reduce_scatter_out_feature_matmul\.1,' "$T/long.csv"; then
	ok ":write keeps the whole name"
else bad ":write keeps the whole name" "$(grep -m1 ragged "$T/long.csv")"; fi

# F on long values: 21 distinct op_names of up to 756 characters, which
# share their first 255; Enter filters the table to the one picked, whole.
tui_run "frequency of long values session ends cleanly" "$H" cut_openxla_hlo_isolation_multiply_reduce_fusion.94.hlo <<'EOF2'
t
:column op_name
F
has every whole value is its own row => Frequency of op_name over 148 rows: 21 values
j
Enter
has Enter keeps the rows of that value only, whole => 14 rows with op_name = jit(run)/transpose(jvp(
Q
EOF2

# A bare .npz: operands are the dataset's edges, said once.
tui_run "npz operands session ends cleanly" "$DATA" npz/layout/xla/default/train/unet3d.npz <<'EOF2'
:show 603
has the dataset's edges, said once => 2 operands  1 user  configurable #15 of 56  (operands: the dataset's edges
lacks no operand index from sorted edges => operand 0
r
has a bare .npz keeps no attributes => 0 collectives by opcode; a bare .npz keeps no attributes
Q
EOF2

# A measured profile laid over (--data with a time column, as `hloscope
# profile` finds it): the node table shows measured and miss (predicted /
# measured) at once, and sorting miss descending puts the largest miss,
# |log2(cost / measured)|, first.  The expectation comes from query --csv.
P=$ROOT/tests/data/profile/i3d_tf_xla_cluster_1.profile.csv
tui_run "profile overlay session ends cleanly" "$H" i3d_tf_xla_cluster_1.hlo --data "$P" <<'EOF2'
t
save miss_default
:sort miss desc
save miss_sorted
has the measured time shows with its unit => 2.99 us
Q
EOF2
"$HLOSCOPE" query "$H/i3d_tf_xla_cluster_1.hlo" --csv 'nodes show name, cost' >"$T/miss_cost.csv" 2>&1
"${PY:-python3}" - "$T/miss_cost.csv" "$P" "$S" >"$T/out" 2>&1 <<'EOF' && ok "miss: the columns by default, the largest miss first" || bad "miss columns" "$(cat "$T/out")"
import csv, math, sys
cost = {r["name"]: float(r["cost_ns"] or 0) for r in csv.DictReader(open(sys.argv[1]))}
meas = {r["name"]: float(r["time_us"]) * 1e3 for r in csv.DictReader(open(sys.argv[2]))}
miss = sorted((abs(math.log2(cost[n] / t)), n) for n, t in meas.items() if cost.get(n, 0) > 0 and t > 0)
head = open(sys.argv[3] + "/miss_default.txt").read().splitlines()[2].split()
assert head[6:10] == ["cost", "measured", "miss", "time_us"], head
first = open(sys.argv[3] + "/miss_sorted.txt").read().splitlines()[3].split()
assert miss[-1][0] > miss[-2][0] and first[1] == miss[-1][1], (first, miss[-3:])
EOF
