"""Writes curve_vectors.txt: k·G1 and k·G2 for a few scalars k, computed with the independent
pure-Python oracle (affine double-and-add, no code shared with core/).

    python3 tests/data/gen_curve_vectors.py /work/shared/oracle > tests/data/curve_vectors.txt
"""
import random
import sys

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "/work/shared/oracle")
import bls12_381_oracle as o  # noqa: E402

rng = random.Random(20240601)
scalars = [2, 3, 5, 0xD201000000010000, o.r - 1, o.r - 2]
scalars += [rng.getrandbits(255) % o.r for _ in range(3)]

print("# k·G1 and k·G2 from shared/oracle/bls12_381_oracle.py (g1_mul / g2_mul), written by")
print("# `python3 tests/data/gen_curve_vectors.py /work/shared/oracle > tests/data/curve_vectors.txt`.")
print("# g1 <k> <x> <y>;  g2 <k> <x.c0> <x.c1> <y.c0> <y.c1>; all hex without 0x, big-endian.")
for k in scalars:
    x, y = o.g1_mul(o.G1, k)
    print("g1 %x %096x %096x" % (k, x, y))
for k in scalars:
    (x0, x1), (y0, y1) = o.g2_mul(o.G2, k)
    print("g2 %x %096x %096x %096x %096x" % (k, x0, x1, y0, y1))
