#!/usr/bin/env bash
# Same-run A/B of synthesis on this machine: tests/bench/synthesis_bench.cpp (from the
# working tree; it uses only the public r1cs / circuits API) built against the prooflab_core
# of two commits, then run alternately, ROUNDS rounds (the order flips every round), the load
# average recorded before every run. Prints the median of each benchmark per commit and
# new/base; the raw Google Benchmark JSON stays in $WORK.
#
#   results/scripts/synthesis_ab.sh BASE NEW [ROUNDS] [FILTER]
#   e.g. results/scripts/synthesis_ab.sh 8fefc68 HEAD 5 'BM_porep_.*/(16|20)/'
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 BASE NEW [ROUNDS] [FILTER]" >&2
  exit 2
fi
root=$(git rev-parse --show-toplevel)
base=$(git -C "$root" rev-parse --short "$1")
new=$(git -C "$root" rev-parse --short "$2")
rounds=${3:-5}
filter=${4:-'BM_porep_(witness|products|synthesize)/(16|20)/'}
work=${WORK:-/tmp/synthesis-ab}
mkdir -p "$work"

build() {  # build COMMIT -> $work/COMMIT/synthesis_bench
  local rev=$1 dir=$work/$1
  if [[ -x $dir/synthesis_bench ]]; then return; fi
  rm -rf "$dir" && mkdir -p "$dir/src"
  git -C "$root" archive "$rev" | tar -x -C "$dir/src"
  cmake -S "$dir/src" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DPROOFLAB_CUDA=OFF -DPROOFLAB_TESTS=OFF -DPROOFLAB_BENCH=OFF >"$dir/configure.log"
  nice -n 10 cmake --build "$dir/build" -j2 --target prooflab_core >"$dir/build.log"
  nice -n 10 clang++ -std=c++20 -O3 -DNDEBUG -mbmi2 -madx -I"$dir/src" \
    "$root/tests/bench/synthesis_bench.cpp" "$dir/build/core/libprooflab_core.a" \
    -lbenchmark_main -lbenchmark -lpthread -o "$dir/synthesis_bench"
}
build "$base"
build "$new"

runs=$work/runs-$base-$new-$(date +%Y%m%dT%H%M%S)
mkdir -p "$runs"
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then order=("$base" "$new"); else order=("$new" "$base"); fi
  for rev in "${order[@]}"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "round $r $rev load $load" >&2
    "$work/$rev/synthesis_bench" --benchmark_filter="$filter" --benchmark_format=json \
      --benchmark_out="$runs/$r-$rev.json" --benchmark_out_format=json \
      --benchmark_context=load="$load" --benchmark_context=commit="$rev" >/dev/null
  done
done

python3 - "$runs" "$base" "$new" <<'EOF'
import json, pathlib, statistics, sys
runs, base, new = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
times, loads = {base: {}, new: {}}, []
for f in sorted(runs.glob("*.json")):
    doc = json.loads(f.read_text())
    rev = doc["context"]["commit"]
    loads.append(float(doc["context"]["load"]))
    for b in doc["benchmarks"]:
        times[rev].setdefault(b["run_name"], []).append(b["real_time"])  # manual: thread CPU
print(f"| benchmark (ms, median) | {base} | {new} | new/base | runs |")
print("|---|---|---|---|---|")
for name in times[base]:
    a, b = statistics.median(times[base][name]), statistics.median(times[new].get(name, [float('nan')]))
    print(f"| {name} | {a:.2f} | {b:.2f} | {b / a:.3f} | {len(times[base][name])} + {len(times[new].get(name, []))} |")
print(f"\nload average before the runs: min {min(loads):.2f}, median {statistics.median(loads):.2f}, "
      f"max {max(loads):.2f}; raw JSON: {runs}")
EOF
