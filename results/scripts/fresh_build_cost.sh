#!/usr/bin/env bash
# What a fresh clone's `make test` costs, step by step, and where the compile time goes.
#
#   bash results/scripts/fresh_build_cost.sh [COMMIT] [DEST]     (default: HEAD, /tmp/prooflab-fresh)
#
# Clones the repository at COMMIT into DEST and times `make deps` (pip; apt only installs what
# this machine lacks), `make build` and the rest of `make test`, then checks that `make run`'s
# build step has nothing to do. Every compile runs behind a launcher that records its CPU
# seconds (user + system of the compiler and its children: nvcc's cicc and ptxas too), which
# do not depend on how loaded a shared machine is, where wall-clock time does. ccache is off
# (a first CI build has an empty cache). Prints the step table, CPU seconds per target and the
# 15 costliest translation units, with the load average.
set -euo pipefail
src=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
commit=${1:-HEAD}
dest=${2:-/tmp/prooflab-fresh}
rm -rf "$dest"
git clone -q "$src" "$dest"
git -C "$dest" checkout -q "$(git -C "$src" rev-parse "$commit")"
cd "$dest"

log=$dest/fresh-build-cpu.log
launcher=$dest/.cpu-launcher
cat >"$launcher" <<'EOF'
#!/usr/bin/env python3
import os, resource, subprocess, sys, time
cmd = sys.argv[1:]
out = cmd[cmd.index("-o") + 1] if "-o" in cmd else "?"
t0 = time.time()
rc = subprocess.call(cmd)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(os.environ["PROOFLAB_CPU_LOG"], "a") as f:
    f.write(f"{ru.ru_utime + ru.ru_stime:.2f} {time.time() - t0:.2f} {out}\n")
sys.exit(rc)
EOF
chmod +x "$launcher"
export PROOFLAB_CPU_LOG=$log
: >"$log"

steps=()
step() {
  local name=$1 start=$SECONDS load
  shift
  load=$(cut -d' ' -f1 /proc/loadavg)
  "$@" >"$dest/fresh-build-$name.log" 2>&1 || { echo "$name failed: $dest/fresh-build-$name.log"; exit 1; }
  steps+=("$(printf '%-22s %6d s   load %s -> %s' "$name" $((SECONDS - start)) "$load" "$(cut -d' ' -f1 /proc/loadavg)")")
}
step deps make deps
L="-DCMAKE_C_COMPILER_LAUNCHER=$launcher -DCMAKE_CXX_COMPILER_LAUNCHER=$launcher"
L="$L -DCMAKE_CUDA_COMPILER_LAUNCHER=$launcher -DPROOFLAB_CCACHE=OFF"
step configure cmake --preset release $L
step build make build
step "test (after build)" make test
step "make run's build" cmake --build build
# The commit stamp (harness/build_commit.cmake) runs at every build; nothing may compile or link.
rebuilt=$(grep -cE "Building|Linking" "$dest/fresh-build-make run's build.log" || true)

echo "commit $(git rev-parse --short=12 HEAD), $(nproc) cores, $(date -u +%FT%TZ)"
printf '%s\n' "${steps[@]}"
echo "make run after make test: $([ "$rebuilt" -eq 0 ] && echo 'nothing compiled or linked' || echo "REBUILT $rebuilt files")"
python3 - "$log" <<'EOF'
import collections, re, sys
rows = [l.split(maxsplit=2) for l in open(sys.argv[1]) if l.strip()]
total = sum(float(r[0]) for r in rows)
by_target = collections.Counter()
for cpu, _, out in rows:
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", out)
    by_target[m.group(1) if m else out] += float(cpu)
print(f"compile CPU: {total:.0f} s in {len(rows)} steps ({total / 2:.0f} s on 2 idle cores)")
for t, s in by_target.most_common(12):
    print(f"  {s:7.1f} s  {100 * s / total:4.1f} %  {t}")
print("costliest translation units (CPU s):")
for cpu, wall, out in sorted(rows, key=lambda r: -float(r[0]))[:15]:
    print(f"  {float(cpu):7.1f}  {out}")
EOF
