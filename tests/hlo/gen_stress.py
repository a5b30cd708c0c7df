"""Generated HLO modules that combine every syntax form real modules show
(tests/data/hlo/README.md): module attributes before the instructions, long
slices, deep tuples, layouts with tiles and memory spaces, dynamic
dimensions, escapes in strings, /*index=N*/ comments, stack-frame tables,
'} // name' trailers, every way a computation is called, async pairs,
control predecessors, sharding, backend_config in its three forms, and
constants of every kind.  Names, shapes and attributes vary from module to
module (seeded, so the same seed writes the same files).

Each module NAME.hlo comes with NAME.want: the lines `hlo_tool stats` must
print for it, known by construction (computations, instructions, edges as
the dataset counts them, opcodes).  tests/suites/hlo_stress.sh reads them
with the C reader under the sanitizers.

Usage: gen_stress.py OUT_DIR [COUNT] [SEED]
"""
import os
import random
import sys

TYPES = ["f32", "bf16", "f16", "s32", "u8", "pred", "s8", "f64", "u32", "f8e4m3fn", "c64", "s4"]


class Gen:
    def __init__(self, rng, k):
        self.r = rng
        self.k = k
        self.pct = rng.random() < 0.5           # %names (TF) or bare (JAX)
        self.typed = self.pct and rng.random() < 0.5
        self.comps = []                          # (name, lines) in order
        self.n_instr = 0
        self.edges = 0
        self.opcodes = {}
        self.frames = rng.random() < 0.4
        self.names = 0

    # ---- names and shapes --------------------------------------------
    def name(self, base):
        """Unique in the module: the count of names so far is in it."""
        self.names += 1
        return "%s%s%d" % (base, self.r.choice([".", "-", "_", ".0."]), self.names)

    def ref(self, n):
        return ("%" if self.pct else "") + n

    def dims(self, rank):
        return [self.r.choice([0, 1, 2, 3, 8, 128, 4096]) if self.r.random() < 0.2
                else self.r.randrange(1, 64) for _ in range(rank)]

    def layout(self, rank):
        m2m = list(range(rank))[::-1]
        if self.r.random() < 0.3:
            self.r.shuffle(m2m)
        text = ",".join(map(str, m2m))
        extra = ""
        roll = self.r.random()
        if roll < 0.15:
            extra = ":T(8,128)(2,1)"
        elif roll < 0.25:
            extra = ":T(8,128)S(1)"
        elif roll < 0.3:
            extra = ":T(256)E(32)S(2)"
        return "{%s%s}" % (text, extra)

    def array(self, rank=None, ty=None, dynamic=False):
        if rank is None:
            rank = self.r.randrange(0, 6)
        ty = ty or self.r.choice(TYPES)
        d = self.dims(rank)
        parts = []
        for x in d:
            if dynamic and self.r.random() < 0.3:
                parts.append("<=%d" % max(x, 1))
            else:
                parts.append(str(x))
        return "%s[%s]%s" % (ty, ",".join(parts), self.layout(rank) if rank or self.r.random() < 0.5 else "")

    def tuple_shape(self, depth):
        n = self.r.randrange(0, 7)
        elems = []
        for i in range(n):
            e = self.tuple_shape(depth - 1) if depth > 0 and self.r.random() < 0.4 else self.array()
            elems.append(("/*index=%d*/" % i if i and i % 5 == 0 else "") + e)
        return "(" + ", ".join(elems) + ")"

    def sig_shape(self, shape):
        """A shape as signatures write it (no layouts)."""
        out, skip = [], 0
        for c in shape:
            if c == "{":
                skip += 1
            elif c == "}":
                skip -= 1
            elif not skip:
                out.append(c)
        return "".join(out)

    # ---- instructions ------------------------------------------------
    def operand(self, name, shape):
        return (shape + " " if self.typed else "") + self.ref(name)

    def metadata(self):
        if self.r.random() < 0.5:
            return ""
        path = "/".join(self.r.choice(["jit(step)", "transformer", "layer_%d" % self.r.randrange(4),
                                       "mlp", "dot_general", "attn\\'s q", "while", "body"])
                        for _ in range(self.r.randrange(1, 8)))
        md = 'op_type="%s" op_name="%s"' % (self.r.choice(["Add", "MatMul", 'Q\\"uote']), path)
        if self.r.random() < 0.5:
            md += ' source_file="/src/model.py" source_line=%d' % self.r.randrange(1, 900)
        if self.r.random() < 0.3:
            md += " source_end_line=%d source_column=3 source_end_column=9" % self.r.randrange(1, 900)
        if self.frames and self.r.random() < 0.5:
            md += " stack_frame_id=%d" % self.r.randrange(1, 4)
        return ", metadata={%s}" % md

    def sharding(self):
        return self.r.choice([
            "", "", "", ", sharding={replicated}", ", sharding={maximal device=0}",
            ", sharding={devices=[2,1]0,1}", ", sharding={devices=[4,1,2]<=[8] last_tile_dim_replicate}",
            ", sharding={{replicated}, {devices=[2]<=[2]}}", ", sharding={manual}"])

    def emit(self, lines, name, shape, opcode, operands, attrs="", callees=(), root=False):
        ops = ", ".join(self.operand(n, s) for n, s in operands)
        line = "  %s%s = %s %s(%s)%s%s%s" % ("ROOT " if root else "", self.ref(name), shape, opcode,
                                            ops, attrs, self.sharding() if opcode != "parameter" else "",
                                            self.metadata())
        lines.append(line)
        self.n_instr += 1
        self.edges += len({n for n, _ in operands}) + len(callees)
        self.opcodes[opcode] = self.opcodes.get(opcode, 0) + 1

    # ---- computations ------------------------------------------------
    def header(self, name, params, result, entry=False):
        if self.r.random() < 0.5 or entry and self.r.random() < 0.5:
            sig = ", ".join("%s: %s" % (p, self.sig_shape(s)) for p, s in params)
            return "%s%s (%s) -> %s {" % ("ENTRY " if entry else "", self.ref(name), sig,
                                          self.sig_shape(result))
        return "%s%s {" % ("ENTRY " if entry else "", self.ref(name))

    def close(self, name):
        return "} // " + name if self.r.random() < 0.3 else "}"

    def reducer(self, ty="f32"):
        name = self.name("region")
        a, b = self.name("Arg_0"), self.name("Arg_1")
        s = ty + "[]"
        lines = [self.header(name, [(a, s), (b, s)], s)]
        self.emit(lines, a, s, "parameter", [], "")
        lines[-1] = lines[-1].replace("parameter()", "parameter(0)")
        self.emit(lines, b, s, "parameter", [])
        lines[-1] = lines[-1].replace("parameter()", "parameter(1)")
        self.emit(lines, self.name("add"), s, self.r.choice(["add", "maximum", "minimum", "multiply"]),
                  [(a, s), (b, s)], root=True)
        lines.append(self.close(name))
        self.comps.append((name, lines))
        return name

    def param(self, lines, name, shape, k):
        self.emit(lines, name, shape, "parameter", [])
        lines[-1] = lines[-1].replace("parameter()", "parameter(%d)" % k)

    def fused(self):
        name = self.name("fused_computation")
        shape = self.array(rank=self.r.randrange(1, 4), ty="f32")
        n = self.r.randrange(1, 4)
        params = [(self.name("param_%d" % i), shape) for i in range(n)]
        lines = [self.header(name, params, shape)]
        for i, (p, s) in enumerate(params):
            self.param(lines, p, s, i)
        prev = params[0][0]
        body = []
        for i in range(self.r.randrange(1, 6)):
            nm = self.name(self.r.choice(["add", "multiply", "exponential", "negate", "tanh"]))
            op = nm.split(".")[0].split("-")[0].split("_")[0]
            ops = [(prev, shape)] if op in ("exponential", "negate", "tanh") else \
                  [(prev, shape), (self.r.choice(params)[0], shape)]
            body.append((nm, op, ops))
            prev = nm
        # the ROOT is not always last: XLA's format does not require it
        root_at = len(body) - 1
        late = None
        if len(body) > 1 and self.r.random() < 0.3:
            late = (self.name("dead"), "negate", [(params[0][0], shape)])
        for i, (nm, op, ops) in enumerate(body):
            self.emit(lines, nm, shape, op, ops, root=(i == root_at))
        if late:
            self.emit(lines, late[0], shape, late[1], late[2])
        lines.append(self.close(name))
        self.comps.append((name, lines))
        return name, shape, n

    def while_pair(self):
        st = "(s32[], f32[4]{0})"
        cond, body = self.name("cond"), self.name("body")
        p = self.name("p")
        lines = [self.header(cond, [(p, st)], "pred[]")]
        self.param(lines, p, st, 0)
        g = self.name("get-tuple-element")
        self.emit(lines, g, "s32[]", "get-tuple-element", [(p, st)], ", index=0")
        c = self.name("constant")
        self.emit(lines, c, "s32[]", "constant", [])
        lines[-1] = lines[-1].replace("constant()", "constant(%d)" % self.r.randrange(1, 100))
        self.emit(lines, self.name("compare"), "pred[]", "compare", [(g, "s32[]"), (c, "s32[]")],
                  ", direction=LT", root=True)
        lines.append(self.close(cond))
        self.comps.append((cond, lines))
        q = self.name("q")
        lines = [self.header(body, [(q, st)], st)]
        self.param(lines, q, st, 0)
        i0 = self.name("get-tuple-element")
        self.emit(lines, i0, "s32[]", "get-tuple-element", [(q, st)], ", index=0")
        v = self.name("get-tuple-element")
        self.emit(lines, v, "f32[4]{0}", "get-tuple-element", [(q, st)], ", index=1")
        one = self.name("constant")
        self.emit(lines, one, "s32[]", "constant", [])
        lines[-1] = lines[-1].replace("constant()", "constant(1)")
        inc = self.name("add")
        self.emit(lines, inc, "s32[]", "add", [(i0, "s32[]"), (one, "s32[]")])
        self.emit(lines, self.name("tuple"), st, "tuple", [(inc, "s32[]"), (v, "f32[4]{0}")], root=True)
        lines.append(self.close(body))
        self.comps.append((body, lines))
        return cond, body, st

    def entry(self, reducer, fusions, loop):
        name = self.name("main")
        lines = []
        values = []            # (name, shape) defined so far
        params = []

        def newparam(nm, shape):
            self.param(lines, nm, shape, len(params))
            params.append((nm, shape))
            values.append((nm, shape))

        def define(nm, shape, opcode, ops, attrs="", callees=(), root=False):
            self.emit(lines, nm, shape, opcode, ops, attrs, callees, root)
            values.append((nm, shape))

        # parameters, one of them a deep tuple and one with dynamic dims
        for i in range(self.r.randrange(2, 6)):
            shape = self.tuple_shape(3) if i == 1 else self.array(dynamic=(i == 2))
            newparam(self.name("Arg_%d" % i), shape)
        x = self.name("x")
        xs = "f32[8,16,32,4,2,6,3]{6,5,4,3,2,1,0}"
        newparam(x, xs)
        # constants of every kind
        for lit, shape in [("1e-06", "f32[]"), ("-3.40282347e+38", "f32[]"), ("nan", "f32[]"),
                           ("-inf", "bf16[]"), ("true", "pred[]"), ("{...}", "f32[64,64]{1,0}"),
                           ("{ {0.07} }", "f32[1,1]{1,0}"), ("{ }", "f32[0]{0}"), ("{1, 2, 3}", "s32[3]{0}"),
                           ("(1, {2, 3})", "(s32[], s32[2]{0})")]:
            if self.r.random() < 0.6:
                c = self.name("constant")
                define(c, shape, "constant", [])
                lines[-1] = lines[-1].replace("constant()", "constant(%s)" % lit)
        # zero-operand instructions
        define(self.name("iota"), "s32[16]{0}", "iota", [], ", iota_dimension=0")
        define(self.name("partition-id"), "u32[]", "partition-id", [])
        tok = self.name("after-all")
        define(tok, "token[]", "after-all", [])
        # a long slice (issue 25), a transpose, a reshape
        rank = 7
        sl = ", ".join("[0:%d%s]" % (d, ":1" if self.r.random() < 0.5 else "")
                       for d in [8, 16, 32, 4, 2, 6, 3][:rank])
        s1 = self.name("slice")
        define(s1, xs, "slice", [(x, xs)], ", slice={%s}" % sl)
        define(self.name("transpose"), "f32[3,6,2,4,32,16,8]{0,1,2,3,4,5,6}", "transpose", [(s1, xs)],
               ", dimensions={6,5,4,3,2,1,0}")
        # reduce with a reducer, reduce-window with a 5-D window
        r = self.name("reduce")
        zero = self.name("constant")
        define(zero, "f32[]", "constant", [])
        lines[-1] = lines[-1].replace("constant()", "constant(0)")
        define(r, "f32[8]{0}", "reduce", [(x, xs), (zero, "f32[]")], ", dimensions={1,2,3,4,5,6}, to_apply=" +
               self.ref(reducer), callees=[reducer])
        w5 = "f32[2,4,4,4,4]{4,3,2,1,0}"
        wp = self.name("w")
        newparam(wp, w5)
        define(self.name("reduce-window"), w5, "reduce-window", [(wp, w5), (zero, "f32[]")],
               ", window={size=1x2x2x2x1 stride=1x1x2x2x1 pad=0_0x0_1x1_1x0_0x0_0 lhs_dilate=1x1x1x1x1 "
               "rhs_dilate=1x1x1x1x1}, to_apply=" + self.ref(reducer), callees=[reducer])
        # convolution, dot with dimension numbers
        a4 = "f32[8,32,32,16]{3,2,1,0}"
        k4 = "f32[3,3,16,32]{3,2,1,0}"
        ca, ck = self.name("img"), self.name("kernel")
        newparam(ca, a4)
        newparam(ck, k4)
        define(self.name("convolution"), "f32[8,32,32,32]{3,2,1,0}", "convolution", [(ca, a4), (ck, k4)],
               ", window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=1")
        m2 = "f32[4,64,32]{2,1,0}"
        da, db = self.name("lhs"), self.name("rhs")
        newparam(da, m2)
        newparam(db, m2)
        define(self.name("dot"), "f32[4,64,64]{2,1,0}", "dot", [(da, m2), (db, m2)],
               ", lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}")
        # fusions
        for fname, fshape, n in fusions:
            ops = [(self.name("fp"), fshape) for _ in range(n)]
            for nm, s in ops:
                newparam(nm, s)
            define(self.name("fusion"), fshape, "fusion", ops,
                   ", kind=%s, calls=%s" % (self.r.choice(["kLoop", "kInput", "kOutput", "kCustom"]),
                                            self.ref(fname)), callees=[fname])
        # a while loop
        cond, body, st = loop
        init = self.name("tuple")
        c0 = self.name("constant")
        define(c0, "s32[]", "constant", [])
        lines[-1] = lines[-1].replace("constant()", "constant(0)")
        v4 = self.name("v")
        newparam(v4, "f32[4]{0}")
        define(init, st, "tuple", [(c0, "s32[]"), (v4, "f32[4]{0}")])
        wl = self.name("while")
        define(wl, st, "while", [(init, st)], ", condition=%s, body=%s" % (self.ref(cond), self.ref(body)),
               callees=[cond, body])
        define(self.name("get-tuple-element"), "f32[4]{0}", "get-tuple-element", [(wl, st)], ", index=1")
        # collectives, sync and async
        ar = self.name("all-reduce")
        define(ar, "f32[4]{0}", "all-reduce", [(v4, "f32[4]{0}")],
               ", channel_id=%d, replica_groups=%s, use_global_device_ids=true, to_apply=%s" %
               (self.r.randrange(1, 9), self.r.choice(["{{0,1},{2,3}}", "[2,2]<=[4]", "{}"]), self.ref(reducer)),
               callees=[reducer])
        ars = self.name("all-reduce-start")
        define(ars, "f32[4]{0}", "all-reduce-start", [(ar, "f32[4]{0}")],
               ", replica_groups={{0,1,2,3}}, to_apply=" + self.ref(reducer), callees=[reducer])
        define(self.name("all-reduce-done"), "f32[4]{0}", "all-reduce-done", [(ars, "f32[4]{0}")])
        # custom-calls with backend_config in its three forms
        for cfg in ['backend_config="{\\"alpha_real\\":1,\\"beta\\":0}"',
                    'backend_config={"operation_queue_id":"0","wait_on_operation_queues":[]}',
                    'backend_config="\\010\\001\\377"']:
            define(self.name("custom-call"), "f32[4]{0}", "custom-call", [(v4, "f32[4]{0}")],
                   ', custom_call_target="__cublas$gemm", ' + cfg)
        # frontend attributes and control predecessors
        neg = self.name("negate")
        define(neg, "f32[4]{0}", "negate", [(v4, "f32[4]{0}")],
               ', frontend_attributes={_xla_stream_annotation="1",other="a b"}, control-predecessors={%s}' %
               self.ref(ar))
        # a tuple of many values, ROOT
        items = values[-min(len(values), 12):]
        shape = "(" + ", ".join(("/*index=%d*/" % i if i and i % 5 == 0 else "") + s
                                for i, (_, s) in enumerate(items)) + ")"
        define(self.name("tuple"), shape, "tuple", items, root=True)
        # the header goes first: the parameters are known now
        pshapes = [s for _, s in params]
        head = self.header(name, [(p, s) for p, s in params], shape, entry=True)
        lines.insert(0, head)
        lines.append(self.close(name))
        self.comps.append((name, lines))
        return name, pshapes, shape

    def module(self):
        reducer = self.reducer()
        fusions = [self.fused() for _ in range(self.r.randrange(1, 4))]
        loop = self.while_pair()
        ename, pshapes, rshape = self.entry(reducer, fusions, loop)
        mname = self.name("jit_stress")
        attrs = [
            "is_scheduled=true",
            "input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }",
            "alias_passthrough_params=true",
            "entry_computation_layout={(%s)->%s}" % (", ".join(pshapes), rshape),
            "num_partitions=%d" % self.r.choice([1, 2, 4, 8]),
            'frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[\\"x\\"=2]>}"}',
        ]
        self.r.shuffle(attrs)
        out = ["HloModule %s, %s" % (mname, ", ".join(attrs)), ""]
        if self.frames:
            out += ['FileNames', '1 "/src/model.py"', '2 "<embedded \\\'m\\\'>"', "",
                    "FunctionNames", '1 "f"', '2 "<module>"', "",
                    "FileLocations",
                    "1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}",
                    "2 {file_name_id=2 function_name_id=2 line=7 end_line=8 column=2 end_column=4}", "",
                    "StackFrames", "1 {file_location_id=1 parent_frame_id=1}",
                    "2 {file_location_id=2 parent_frame_id=1}", "3 {file_location_id=1 parent_frame_id=2}", ""]
        for _, lines in self.comps:
            out += lines + [""]
        want = ["module %s computations=%d instructions=%d edges=%d" %
                (mname, len(self.comps), self.n_instr, self.edges)]
        want += ["opcode %s %d" % (op, n) for op, n in sorted(self.opcodes.items())]
        return "\n".join(out), "\n".join(want) + "\n"


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 24
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    os.makedirs(out, exist_ok=True)
    for k in range(count):
        g = Gen(random.Random(seed * 1000 + k), k)
        text, want = g.module()
        with open(os.path.join(out, "stress-%03d.hlo" % k), "w") as f:
            f.write(text)
        with open(os.path.join(out, "stress-%03d.want" % k), "w") as f:
            f.write(want)


main()
