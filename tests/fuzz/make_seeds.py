#!/usr/bin/python3
"""Writes the seed corpus tests/fuzz/corpus/npz/ (small, real-shaped files).

    /usr/bin/python3 tests/fuzz/make_seeds.py tests/fuzz/corpus/npz

Each seed is under 4 KB: a tile and a layout graph as numpy writes them
(deflate), a stored layout graph, a zip64 + data-descriptor archive of mixed
dtypes and orders, npy versions 2.0 and 3.0, and the two smallest real files
when $DATA has them.
"""
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
from make_corrupt import layout_arrays, tile_arrays  # noqa: E402
from make_fixtures import npy_bytes, write_bytes, zip_bytes  # noqa: E402


def main(out):
    os.makedirs(out, exist_ok=True)
    np.savez_compressed(os.path.join(out, "tile.npz"), **tile_arrays())
    np.savez_compressed(os.path.join(out, "layout.npz"), **layout_arrays())
    small = layout_arrays()
    small["node_feat"] = small["node_feat"][:, :40].copy()
    np.savez(os.path.join(out, "layout_stored.npz"), **small)
    mixed = {
        "a": np.asfortranarray(np.arange(12, dtype=">i4").reshape(3, 4)),
        "b": np.array([1.5, -0.0, np.inf], dtype="<f2"),
        "c": np.array(7, dtype="u8"),
        "d": np.zeros((0, 3), "?"),
        "e": np.arange(24, dtype=">f8").reshape(2, 3, 4),
    }
    mem = [(k + ".npy", npy_bytes(v), 8 if i % 2 else 0)
           for i, (k, v) in enumerate(mixed.items())]
    write_bytes(os.path.join(out, "mixed_zip64.npz"),
                zip_bytes(mem, local64=True, central64=True, eocd64=True,
                          descriptor=True))
    mem = [(k + ".npy", npy_bytes(v, version=(2 + i % 2, 0)), 8)
           for i, (k, v) in enumerate(mixed.items())]
    write_bytes(os.path.join(out, "npy_v2_v3.npz"), zip_bytes(mem))
    data = os.environ.get("DATA", os.path.join(HERE, "..", "data", "tpugraphs"))
    for rel in ["npz/tile/xla/train/retinanet.2x2.fp32_-342c949e14733d96.npz",
                "npz/tile/xla/valid/inception_v3_batch_128_train_426e203f19335d17.npz"]:
        src = os.path.join(data, rel)
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(out, "real_" + os.path.basename(rel)))
    for f in sorted(os.listdir(out)):
        size = os.path.getsize(os.path.join(out, f))
        assert size < 4096, (f, size)
        print("%6d %s" % (size, f))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(1)
    main(sys.argv[1])
