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
