#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/bench-pack.sh): the multicore target against parallel streams on
# the host's cores, one JVM per benchmark, both in the same JVM on the same arrays (org.acc4j.jmh.ChunkingHarness):
# interleaved rounds in an order shuffled per round, each round's streams time divided by the target's (a paired
# ratio), the median of those ratios with a distribution-free 95% interval. Every JVM has the same fixed heap, touched
# at start (-Xms = -Xmx, -XX:+AlwaysPreTouch), and the parallel collector, so that no concurrent collector thread
# competes with the 16 threads of either version; Java cannot pin threads to cores, and the machine has one NUMA node
# and one thread per core. Logs to $OUT: harness.txt (every figure), ratios.txt (the RATIO and VS lines).
#   MC_HARNESS   "name:size[:variant,...[:rounds]] ..." (default: the JMH set, the target's own chunking)
#   MC_ROUNDS    rounds (default 25), MC_SLOT seconds per variant and round (default 0.12)
#   MC_HEAP      the heap of each JVM (default 8g)
#   MC_EDGEFLUX  "cells reps" for the edge-flux sample on the multicore target (coloured loops colour by colour on the
#                cores against plain Java on one thread; needs scripts/gpu-pack.sh's samples.jar; "" to skip)
#   MC_JMH       1 to run JMH's multicore and streams modes afterwards (default 0), MC_JMH_ARGS its options
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-multicore}
mkdir -p "$out"
read -r -a java <<<"${MC_JAVA:-bash .gpu/on-gpu.sh}"
heap=${MC_HEAP:-8g}
jvm=(-Xms"$heap" -Xmx"$heap" -XX:+AlwaysPreTouch -XX:+UseParallelGC -javaagent:.gpu/acc.jar)
set=${MC_HARNESS-vectoradd:67108864 dot:134217728 jacobi:8192 stencil:512x512x64 stencil:256x256x256 laplacian:512x512x64 laplacian:256x256x256 wave13pt:512x512x64 wave13pt:256x256x256 dgemm:1024:mc:9 spmv:2097152}
echo "== $(nproc) cores; $(cat .gpu/bench/commit.txt 2>/dev/null | head -1)" | tee "$out/run-info.txt"
lscpu 2>/dev/null | grep -i "model name\|socket\|core\|numa\|L3" | tee -a "$out/run-info.txt"
echo "jvm: ${jvm[*]}; rounds ${MC_ROUNDS:-25}, slot ${MC_SLOT:-0.12} s" | tee -a "$out/run-info.txt"
: >"$out/ratios.txt"
start=$(date +%s)
for spec in $set; do
  IFS=: read -r name size variants rounds <<<"$spec"
  t0=$(date +%s)
  timeout "${MC_HARNESS_TIMEOUT:-90}" "${java[@]}" "${jvm[@]}" -cp .gpu/bench/benchmarks.jar org.acc4j.jmh.ChunkingHarness \
    "${rounds:-${MC_ROUNDS:-25}}" "${MC_SLOT:-0.12}" "$name:$size${variants:+:$variants}" 2>&1 | grep -av "^acc4j: " \
    | tee -a "$out/harness.txt" | grep -a "^RATIO\|^VS" | tee -a "$out/ratios.txt"
  echo "$name $size: exit ${PIPESTATUS[0]}, $(( $(date +%s) - t0 )) s" | tee -a "$out/run-info.txt"
done
echo "harness: $(( $(date +%s) - start )) s" | tee -a "$out/run-info.txt"
edge=${MC_EDGEFLUX-4194304 10}
if [ -n "$edge" ] && [ -f .gpu/samples.jar ]; then
  echo "== edge fluxes on the multicore target ($(nproc) threads)"
  ACC_DEVICE_TYPE=multicore timeout "${MC_HARNESS_TIMEOUT:-90}" "${java[@]}" -Xms"$heap" -Xmx"$heap" -XX:+UseParallelGC \
    -javaagent:.gpu/acc.jar -cp .gpu/samples.jar:.gpu/lib/annotations.jar org.acc4j.samples.EdgeFlux $edge 2>&1 \
    | grep -av "^acc4j: .*  " | tee "$out/edge-flux.txt" | tail -12
fi
if [ "${MC_JMH:-0}" = 1 ]; then
  echo "== JMH: multicore against parallel streams ($(nproc) cores)"
  timeout "${MC_JMH_TIMEOUT:-240}" "${java[@]}" "${jvm[@]}" -jar .gpu/bench/benchmarks.jar \
    '\.(VectorAdd|Dot|Jacobi|Stencil|Laplacian|Dgemm|Spmv)Bench\.(streams|multicore)$' -f "${MC_JMH_FORKS:-1}" \
    -jvmArgsAppend "-Xms$heap -Xmx$heap -XX:+AlwaysPreTouch -XX:+UseParallelGC" \
    ${MC_JMH_ARGS:--wi 3 -w 1 -i 5 -r 1} -rf json -rff "$out/jmh-multicore.json" 2>&1 \
    | tee "$out/jmh-multicore.log" | grep -a "Bench\.\(streams\|multicore\)" | tail -30
fi
