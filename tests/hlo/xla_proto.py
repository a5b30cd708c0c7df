"""The tests' own reading of XLA's dump files, independent of hloscope's C
readers: the protobuf wire format by hand (an xla.HloProto: its module's
instructions and its buffer assignment, field numbers of openxla/xla's
xla/service/hlo.proto), and the text protobuf of a GPU target config by
regular expressions.  Files may be xz-compressed (python's lzma).

  load(path)             the bytes, decompressed when xz
  module_of(hloproto)    [(id, name, opcode, computation name)] of its module
  buffers_of(hloproto)   ({instruction id: bytes}, {"peak": ..., ...}) from its
                         buffer assignment (None when it has none)
  target_of(text)        {field: value} of a gpu_target_config.pbtxt
"""
import lzma
import re


def load(path):
    b = open(path, "rb").read()
    return lzma.decompress(b) if b[:6] == b"\xfd7zXZ\x00" else b


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def read_varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(number, value) of each field of a message: an int or bytes."""
    i = 0
    while i < len(b):
        key, i = read_varint(b, i)
        n, wire = key >> 3, key & 7
        if wire == 0:
            v, i = read_varint(b, i)
        elif wire == 2:
            size, i = read_varint(b, i)
            v, i = b[i:i + size], i + size
        elif wire == 1:
            v, i = b[i:i + 8], i + 8
        elif wire == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        yield n, v


def first(msg, number, default=None):
    for n, v in fields(msg):
        if n == number:
            return v
    return default


def module_of(hloproto):
    """[(id, name, opcode, computation)] of HloProto field 1, in file order."""
    out = []
    module = first(hloproto, 1, b"")
    for n, comp in fields(module):
        if n != 3:                                     # HloModuleProto.computations
            continue
        cname = first(comp, 1, b"").decode()
        for m, ins in fields(comp):
            if m == 2:                                 # HloComputationProto.instructions
                out.append((first(ins, 35, 0), first(ins, 1, b"").decode(), first(ins, 2, b"").decode(), cname))
    return out


def buffers_of(hloproto):
    """Per instruction id, the bytes of the logical buffers defined there that
    an allocation holds (BufferAllocationProto.assigned sizes), and the
    module's memory: the sum of the allocations' sizes, thread-local ones
    left out, and its parts."""
    ba = first(hloproto, 3)
    if ba is None:
        return None, None
    defined = {}
    for n, lb in fields(ba):
        if n == 1:                                     # logical_buffers
            loc = first(lb, 3, b"")                    # defined_at
            defined[first(lb, 1, 0)] = first(loc, 4, 0)   # instruction_id
    per, mem = {}, {"peak": 0, "parameters": 0, "outputs": 0, "constants": 0, "temporaries": 0,
                    "thread_local": 0, "allocations": 0}
    for n, alloc in fields(ba):
        if n != 3:                                     # buffer_allocations
            continue
        f = {}
        assigned = []
        for m, v in fields(alloc):
            if m == 9:
                assigned.append((first(v, 1, 0), first(v, 3, 0)))
            else:
                f[m] = v
        size = f.get(2, 0)
        mem["allocations"] += 1
        if f.get(3):
            mem["thread_local"] += size
        else:
            mem["peak"] += size
            kind = "parameters" if f.get(5) else "constants" if f.get(12) else "outputs" if f.get(7) else "temporaries"
            mem[kind] += size
        for lbid, asize in assigned:
            iid = defined[lbid]
            per[iid] = per.get(iid, 0) + asize
    return per, mem


def target_of(text):
    """The scalars of a target config by their last name (nested ones too)."""
    out = {}
    for name, value in re.findall(r"^\s*(\w+):\s*(\"[^\"]*\"|[-\w.]+)", text, re.M):
        out.setdefault(name, value.strip('"'))
    m = re.search(r"cuda_compute_capability\s*\{([^}]*)\}", text)
    if m:
        mm = dict(re.findall(r"(\w+):\s*(\d+)", m.group(1)))
        out["compute_capability"] = "%s.%s" % (mm.get("major", "0"), mm.get("minor", "0"))
    return out
