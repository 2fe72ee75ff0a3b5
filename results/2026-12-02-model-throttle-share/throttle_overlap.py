"""How much the sparse products (WITNESS_END..SYNTH_END) stretch per second of b_g2_msm overlap,
per arm of h200-phase11-threads: least squares products = a + s * overlap.
Usage: cd results/2026-12-02-h200-campaign/h200-phase11-threads/base && python THIS"""
import csv,sys,statistics as st
import numpy as np
for arm in ['baseline','I3','all','I2']:
  X=[];Y=[]
  for rep in '01':
    ev=list(csv.DictReader(open(f'{arm}/{rep}/timeline.csv')))
    st_={};b={};prod=[];bg=[]
    for e in ev:
      k=(e['job'],e['partition']);t=int(e['t_us'])/1e6
      if e['event']=='WITNESS_END': st_[k]=t
      if e['event']=='SYNTH_END': prod.append((st_[k],t))
      if e['event']=='B_G2_MSM_START': b[k]=t
      if e['event']=='B_G2_MSM_END': bg.append((b[k],t))
    # union of bg
    bg.sort();U=[]
    for s,e in bg:
      if U and s<=U[-1][1]: U[-1][1]=max(U[-1][1],e)
      else: U.append([s,e])
    for s,e in prod:
      o=sum(max(0,min(e,u1)-max(s,u0)) for u0,u1 in U)
      X.append(o);Y.append(e-s)
  X=np.array(X);Y=np.array(Y)
  A=np.vstack([np.ones_like(X),X]).T
  c=np.linalg.lstsq(A,Y,rcond=None)[0]
  print(arm,'n',len(X),'median prod',round(np.median(Y),3),'median overlap',round(np.median(X),3),'mean overlap frac',round((X/Y).mean(),3),'fit prod = %.3f + %.3f*overlap'%tuple(c))
