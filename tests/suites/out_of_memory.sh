#!/bin/sh
# Out of memory is its own exit status (3), not "bad data" (2).
#
# big.npz holds one member, big.npy, whose npy header and zip directory
# agree on 256 MiB of int64, while the member holds only the deflated header
# and empty deflate blocks (enough compressed bytes not to look like a zip
# bomb).  Reading the array allocates 256 MiB before it can find the data
# short: with memory to spare that is a data error (2); with the address
# space limited to 64 MiB the allocation fails, every time, and the command
# says so and exits 3.  ASan reserves terabytes of address space at start,
# so the limited run is left to the release build.
. tests/lib.sh

"$PY" - "$T/big.npz" <<'EOF'
import struct, sys, zlib
n = (256 << 20) // 8
hdr = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % n
hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode()
c = zlib.compressobj(6, zlib.DEFLATED, -15)
data = c.compress(npy) + c.flush(zlib.Z_SYNC_FLUSH)
size, name = len(npy) + 8 * n, b"big.npy"
data += b"\0\0\0\xff\xff" * ((size // 1000 - len(data)) // 5)  # empty stored blocks
local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0, 0, len(data), size,
                    len(name), 0) + name
cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 8, 0, 0, 0, len(data), size,
                 len(name), 0, 0, 0, 0, 0, 0) + name
end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(cd), len(local) + len(data), 0)
open(sys.argv[1], "wb").write(local + data + cd + end)
EOF

expect_status 2 "oom: a short member with memory to spare is bad data (2)" \
	"$HLOSCOPE" dump "$T/big.npz" big
grep -q "compressed data ends" "$T/err" && ok "oom: ... and says the data ends early" ||
	bad "oom: message with memory to spare" "$(cat "$T/err")"

[ "$PASS" = sanitizer ] && exit 0

(ulimit -v 65536 && exec "$HLOSCOPE" dump "$T/big.npz" big) >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 3 ] && ok "oom: the same read in 64 MiB of address space exits 3" ||
	bad "oom: exit status" "exit $rc, wanted 3; stderr: $(head -c 300 "$T/err")"
want="hloscope dump: $T/big.npz: big.npy: out of memory for 268435456 bytes"
[ "$(cat "$T/err")" = "$want" ] && ok "oom: the message says out of memory, where and for what" ||
	bad "oom: message" "got '$(cat "$T/err")', wanted '$want'"
[ -s "$T/out" ] && bad "oom: stdout" "not empty: $(head -c 200 "$T/out")" ||
	ok "oom: nothing on stdout"
exit 0
