"""Per-stage medians (ms), measured vs predicted, per arm of a validate-model experiment.
Usage: PYTHONPATH=analysis .venv/bin/python THIS EXPERIMENT_DIR CALIBRATION_ARM"""
import sys
import numpy as np, pandas as pd
from prooflab_analysis.model import validation as V

PAIRS={"witness":("SYNTH_START","WITNESS_END"),"products":("WITNESS_END","SYNTH_END"),"prep_msm":("PREP_MSM_START","PREP_MSM_END"),
 "queue":("GPU_QUEUE","GPU_PICKUP"),"lock_wait":("LOCK_WAIT_START","GPU_START"),"gpu":("GPU_START","GPU_END"),"b_g2_msm":("B_G2_MSM_START","B_G2_MSM_END")}
def med(tls):
    out={}
    for name,(a,b) in PAIRS.items():
        vals=[]
        for tl in tls:
            s=tl[tl.event==a].set_index(["job","partition"])["t_us"]; e=tl[tl.event==b].set_index(["job","partition"])["t_us"]
            s=s[~s.index.duplicated()]; e=e[~e.index.duplicated()]
            j=pd.concat([s,e],axis=1,keys=["s","e"]).dropna(); vals+=list((j.e-j.s)/1e3)
        out[name]=np.median(vals) if vals else float('nan')
    return out
captured={}
orig=V.point_prediction
def pp(cal,settings,label,reps,seed,r):
    p=orig(cal,settings,label,reps,seed,r); captured[label]=[x.timeline for x in p.runs]; return p
V.point_prediction=pp
d=sys.argv[1]; v=V.validate(d,sys.argv[2],reps=3)
idx=V.load_experiment(d)
print("| arm | stage | "+" | ".join(PAIRS)+" |"); print("|---|---|"+"---|"*len(PAIRS))
for (cell,var),g in idx[idx.status=="complete"].groupby(["cell","variant"]):
    m=med([V.load_run(p).timeline for p in g.run_path]); p=med(captured[f"{cell}/{var}"])
    print(f"| {var} | measured | "+" | ".join(f"{m[k]:.0f}" for k in PAIRS)+" |")
    print(f"| {var} | predicted | "+" | ".join(f"{p[k]:.0f}" for k in PAIRS)+" |")
