"""Per-thread CPU time of one prooflab batch, summed by thread name (/proc/PID/task/*/stat utime+stime,
sampled every 10 ms until the process exits), beside the wall time of its stages (stages.csv).
Usage: thread_cpu.py RUN_ID [prooflab batch options]; the engine runs at nice -15 from this worktree."""
import os, subprocess, sys, time, collections, csv, glob
out, rid = "/tmp/i20-cpu", sys.argv[1]
args = ["nice", "-n", "-15", "/work/wt/issue-20/build/bin/prooflab", "batch", "--out", out, "--run-id", rid, "--force",
        "--param-dir", "/tmp/i20-params", "--set", "backend=cpu", "--set", "circuit=porep-like", "--set", "constraints=2048",
        "--set", "partitions=2", "--set", "gpu_workers_per_device=2"] + sys.argv[2:]
p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
tick = os.sysconf("SC_CLK_TCK"); last = {}
time.sleep(0.02)
pid = None
while p.poll() is None:
    # nice wraps the binary: find the child prooflab
    pid = p.pid  # nice execs the binary
    for t in glob.glob(f"/proc/{pid}/task/*"):
        try:
            s = open(t + "/stat").read(); name = s[s.index("(") + 1:s.rindex(")")]; f = s[s.rindex(")") + 2:].split()
            last[t] = (name, (int(f[11]) + int(f[12])) / tick)
        except (OSError, ValueError): pass
    time.sleep(0.01)
by = collections.Counter()
for name, cpu in last.values(): by[name] += cpu
st = list(csv.DictReader(open(f"{out}/{rid}/stages.csv")))
dur = lambda k: sum(float(r[k]) for r in st if r[k]) / 1e6
print(rid, "cpu by thread name:", {k: round(v, 3) for k, v in by.items()})
print(" device stages wall sum", round(dur("ntt_h_us") + dur("batch_add_us") + dur("tail_msm_us"), 3),
      " b_g2_msm wall sum", round(dur("b_g2_msm_us"), 3), " synth wall sum", round(dur("synth_us"), 3))
