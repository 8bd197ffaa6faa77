#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh and scripts/bench-pack.sh): the samples' harnesses
# (sparse rows, edge fluxes, scans, 2D arrays against flat, the newcomer's heat equation), each timing acc4j against
# its reference in one process, then the JMH multicore and parallel-streams modes on the host's cores, each benchmark in
# a JVM of its own (MC_FORKS=1: the generated kernels of one benchmark do not share profiles with the others'), five
# measured iterations after three warm-up ones (MC_JMH_ARGS). Tables
# to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-harness}
mkdir -p "$out"
cp=".gpu/samples.jar:.gpu/lib/annotations.jar"
h() { local name=$1; shift; echo "== $name"; timeout "${HARNESS_TIMEOUT:-90}" bash .gpu/on-gpu.sh -Xmx16g -javaagent:.gpu/acc.jar -cp "$cp" "$@" \
  2>&1 | grep -v "^acc4j: .*  " | tee "$out/harness-$name.txt" | tail -25; }
h sparse-rows org.acc4j.samples.SparseRows 4194304 20
h edge-flux org.acc4j.samples.EdgeFlux 4194304 20
h scan org.acc4j.samples.ScanBench 134217728 20
h rows-vs-flat org.acc4j.samples.RowsVsFlat 8192 2048 10
h heat-rows org.acc4j.samples.HeatRows 512 200 5
echo "== JMH: multicore against parallel streams ($(nproc) cores)"
timeout "${JMH_TIMEOUT:-330}" bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar \
  '\.(VectorAdd|Dot|Jacobi|Stencil|Laplacian|Dgemm|Spmv)Bench\.(streams|multicore)$' -f ${MC_FORKS:-1} \
  ${MC_JMH_ARGS:--wi 3 -w 1 -i 5 -r 1} \
  -rf json -rff "$out/jmh-multicore.json" 2>&1 | tee "$out/jmh-multicore.log" | grep -a "Bench\.\(streams\|multicore\)" | tail -30
