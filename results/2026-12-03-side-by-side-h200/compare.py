"""The side-by-side table of this README from the four JSON files of the call.

    python3 compare.py [DIR]    (DIR: a folder with the same four files; default this one)

Two interleaved sittings of each program (peer, ours, peer, ours) in one device call. For
each case: each program's median of 11 per sitting, the median over both sittings' 22 samples,
and ours / sppark of those. Standard library only."""
import json
import statistics
import sys
from pathlib import Path

HERE = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent


def samples(files, pick):
    out = {}
    for f in files:
        for key, ms in pick(json.loads((HERE / f).read_text())):
            out.setdefault(key, []).append(ms)
    return out


def peer_rows(d):
    for r in d["rows"]:
        yield (r["case"], r["log_n"]), r["ms"]


def our_rows(d):
    for b in d["benchmarks"]:
        if b["name"] == "msm":
            yield ("msm_g1", b["log_n"]), b["samples_ms"]
        elif b["name"] == "ntt" and b["variant"] == "NR":
            yield ("ntt_nr", b["log_n"]), b["samples_ms"]


peer = samples(["sppark_1.json", "sppark_2.json"], peer_rows)
ours = samples(["ours_1.json", "ours_2.json"], our_rows)
print("| case | n | sppark, per sitting (ms) | ours, per sitting (ms) | sppark, all samples | ours, all samples | ours / sppark |")
print("|---|---|---|---|---|---|---|")
for key in sorted(set(peer) & set(ours)):
    p, o = peer[key], ours[key]
    pm = statistics.median([x for s in p for x in s])
    om = statistics.median([x for s in o for x in s])
    per = lambda sittings: " / ".join(f"{statistics.median(s):.3f}" for s in sittings)
    print(f"| {key[0]} | 2^{key[1]} | {per(p)} | {per(o)} | {pm:.3f} | {om:.3f} | {om / pm:.3f} |")
