"""xz-compressed inputs for tests/suites/xz.sh, made with python's lzma module
(not with hloscope):

  i3d.hlo.xz       the bundled HLO text module, compressed
  unet3d.npz.xz    a bundled dataset .npz, compressed
  psum.pb          the real dump's module_0001 after optimizations, decompressed
  psum.bin         the same module still compressed, under a name that says nothing
  graphsage.hlo    a bundled module; ba.txt.xz, its buffer assignment (one value
                   per instruction of the entry computation, size 8 * (k + 1) for
                   the k-th), compressed; ba-want.json the sizes by name
  corrupt.pb.xz    the real module with one byte of its compressed data changed
  truncated.pb.xz  the real module cut in the middle of its compressed data
  bomb.xz          257 concatenated streams of 8 MiB of zeros each: 2.008 GiB
                   decompressed from 350 KB, over the 2 GiB limit
  liar.xz          100,000 bytes of HLO text whose index declares 70,000
  two.hlo.xz       two streams, each one half of the HLO text module

Usage: make_xz.py REPO_ROOT OUT_DIR
"""
import json
import lzma
import os
import re
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xla_proto import read_varint, varint  # noqa: E402  (the tests' one reading of the wire format)


def liar(data, claim):
    """An xz stream of `data` whose index declares `claim` bytes (same length in varint)."""
    x = bytearray(lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64))
    footer = len(x) - 12
    index_size = (struct.unpack("<I", x[footer + 4:footer + 8])[0] + 1) * 4
    at = footer - index_size
    assert x[at] == 0
    n, i = read_varint(x, at + 1)
    assert n == 1
    _, i = read_varint(x, i)            # unpadded size
    size, j = read_varint(x, i)         # uncompressed size
    assert size == len(data) and len(varint(claim)) == j - i
    x[i:j] = varint(claim)
    crc_at = footer - 4
    x[crc_at:footer] = struct.pack("<I", zlib.crc32(bytes(x[at:crc_at])))
    return bytes(x)


def main():
    root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    data = os.path.join(root, "tests/data")
    dump = os.path.join(data, "xla_dump/pax_fsdp4/dump")

    def write(name, b):
        with open(os.path.join(out, name), "wb") as fo:
            fo.write(b)

    i3d = open(os.path.join(data, "hlo/i3d_tf_xla_cluster_1.hlo"), "rb").read()
    write("i3d.hlo.xz", lzma.compress(i3d))
    half = i3d.index(b"\n", len(i3d) // 2) + 1
    write("two.hlo.xz", lzma.compress(i3d[:half]) + lzma.compress(i3d[half:]))
    npz = open(os.path.join(data, "tpugraphs/npz/layout/xla/default/train/unet3d.npz"), "rb").read()
    write("unet3d.npz.xz", lzma.compress(npz, preset=0))
    psum = open(os.path.join(dump, "module_0001.jit__psum.sm_8.0_gpu_after_optimizations.hlo.pb.xz"), "rb").read()
    write("psum.pb", lzma.decompress(psum))
    write("psum.bin", psum)
    bad = bytearray(psum)
    bad[len(bad) // 2] ^= 0x55
    write("corrupt.pb.xz", bytes(bad))
    write("truncated.pb.xz", psum[:len(psum) // 2])

    # a buffer assignment as XLA prints it, for the entry computation's instructions
    text = open(os.path.join(data, "hlo/graphsage_tf_cpu_benchmark.hlo"), encoding="utf-8").read()
    write("graphsage.hlo", text.encode())
    entry = text[text.index("\nENTRY"):]
    names = re.findall(r"^\s*(?:ROOT )?%?([\w.\-]+) = ", entry, re.M)
    lines, want = ["BufferAssignment:"], {}
    for k, name in enumerate(names):
        lines.append("allocation %d: size %d, maybe-live-out:" % (k, 8 * (k + 1)))
        lines.append(" value: <%d %s @0> (size=%d,offset=0): f32[%d]{0}" % (k, name, 8 * (k + 1), 2 * (k + 1)))
        want[name] = 8 * (k + 1)
    write("ba.txt.xz", lzma.compress(("\n".join(lines) + "\n").encode()))
    with open(os.path.join(out, "ba-want.json"), "w") as fo:
        json.dump(want, fo)

    zeros = lzma.compress(b"\0" * (8 << 20), preset=0)
    write("bomb.xz", zeros * 257)
    body = (b"HloModule liar\n\nENTRY main {\n" + b"  c = f32[] constant(0)\n" * 4000 + b"}\n")[:100000]
    write("liar.xz", liar(body, 70000))


main()
