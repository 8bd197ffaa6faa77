#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/bench-pack.sh): the multicore target against parallel streams on
# the host's cores. First the chunking harness (org.acc4j.jmh.ChunkingHarness: streams, the target's pool with 1, 2, 4
# and 8 chunks per thread, and a fork/join pool splitting the chunks in halves, timed in interleaved rounds), one JVM
# per benchmark; then JMH's multicore and streams modes, one JVM per benchmark (-f 1 unless MC_JMH_FORKS). Logs to $OUT.
#   MC_HARNESS   "name:size ..." for the harness (default: the JMH set); "" to skip it
#   MC_ROUNDS    harness rounds (default 5), MC_SLOT seconds per variant and round (default 0.3)
#   MC_JMH       1 to run the JMH part (default 1), MC_JMH_ARGS its iteration options
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-multicore}
mkdir -p "$out"
read -r -a java <<<"${MC_JAVA:-bash .gpu/on-gpu.sh}"
jvm=(-Xmx48g -javaagent:.gpu/acc.jar)
set=${MC_HARNESS-vectoradd:67108864 dot:134217728 jacobi:8192:serial stencil:512x512x64 stencil:256x256x256 laplacian:512x512x64 laplacian:256x256x256 dgemm:1024 spmv:2097152}
echo "== $(nproc) cores; $(cat .gpu/bench/commit.txt 2>/dev/null | head -1)" | tee "$out/run-info.txt"
lscpu 2>/dev/null | grep -i "model name\|socket\|core\|numa\|L3" | tee -a "$out/run-info.txt"
for spec in $set; do
  timeout "${MC_HARNESS_TIMEOUT:-60}" "${java[@]}" "${jvm[@]}" -cp .gpu/bench/benchmarks.jar org.acc4j.jmh.ChunkingHarness \
    "${MC_ROUNDS:-5}" "${MC_SLOT:-0.3}" "$spec" 2>&1 | grep -av "^acc4j: " | tee -a "$out/harness.txt" | grep -a "^==\|streams/this"
done
if [ "${MC_JMH:-1}" = 1 ]; then
  echo "== JMH: multicore against parallel streams ($(nproc) cores)"
  timeout "${MC_JMH_TIMEOUT:-240}" "${java[@]}" "${jvm[@]}" -jar .gpu/bench/benchmarks.jar \
    '\.(VectorAdd|Dot|Jacobi|Stencil|Laplacian|Dgemm|Spmv)Bench\.(streams|multicore)$' -f "${MC_JMH_FORKS:-1}" \
    ${MC_JMH_ARGS:--wi 2 -w 1 -i 3 -r 1} -rf json -rff "$out/jmh-multicore.json" 2>&1 \
    | tee "$out/jmh-multicore.log" | grep -a "Bench\.\(streams\|multicore\)" | tail -30
fi
