#!/usr/bin/env bash
# On the GPU machine, from a .gpu/ packed by scripts/gpu-pack.sh and scripts/bench-pack.sh, in about 2-3 minutes: each
# timing harness once at a small size, to see that it runs and prints its tables: the transfer table with the fixed
# costs of a copy and a short sweep (TransferBench), the timeline of a staged copy (TransferTimeline), the host's copies
# (HostCopyBench), the time-loop samples (HeatRows, HeatReads, RelaxReads), the double[][] forms against flat
# (RowsVsFlat), the chunking harness on the host's cores (ChunkingHarness), and the per-call and Jacobi kernel harnesses
# (LaunchBench, JacobiKernels). Each has its own time limit; every log goes to $OUT, the tables to stdout.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-smoke}
mkdir -p "$out"
tcp=".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar"
scp=".gpu/samples.jar:.gpu/lib/annotations.jar"
wb="--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
# h NAME LIMIT JVM ARGUMENTS...: one harness in a JVM of its own, its log to $OUT/NAME.txt, its table lines shown
h() {
  local name=$1 limit=$2
  shift 2
  echo "== $name"
  timeout "$limit" bash .gpu/on-gpu.sh "$@" >"$out/$name.txt" 2>&1
  echo "exit $?"
  grep -a "^|\|^#\|^RATIO\|^VS\|^runtime overhead\|match\|MISMATCH\|Exception" "$out/$name.txt" | head -60
}
h transfers 45 -Xmx8g $wb -cp "$tcp" org.acc4j.runtime.transfer.TransferBench --sizes 1,8,64 --breakdown \
  --sweep-sizes 8 --slot-mib 8 --slots 3 --threads 0
h timeline 30 -Xmx8g $wb -cp "$tcp" org.acc4j.runtime.transfer.TransferTimeline 8
h host-copy 25 -Xmx8g $wb -cp "$tcp" org.acc4j.runtime.transfer.HostCopyBench 64 1,4
h heat-rows 25 -Xmx8g -javaagent:.gpu/acc.jar -cp "$scp" org.acc4j.samples.HeatRows 512 100 3
h heat-reads 25 -Xmx8g -javaagent:.gpu/acc.jar -cp "$scp" org.acc4j.samples.HeatReads 512 100 3 10
h relax-reads 25 -Xmx8g -javaagent:.gpu/acc.jar -cp "$scp" org.acc4j.samples.RelaxReads 1048576 100 3 10
h rows-vs-flat 45 -Xmx16g -javaagent:.gpu/acc.jar -cp "$scp" org.acc4j.samples.RowsVsFlat 4096 1024 5 5
h chunking 30 -Xmx8g -javaagent:.gpu/acc.jar -cp .gpu/bench/benchmarks.jar org.acc4j.jmh.ChunkingHarness 8 0.05 \
  vectoradd:16777216
h per-call 40 -javaagent:.gpu/acc.jar -cp ".gpu/acc.jar:.gpu/test-classes:$scp" org.acc4j.samples.bench.LaunchBench --rounds 60
h jacobi-kernels 40 -Xmx8g -cp ".gpu/acc.jar:.gpu/test-classes:$scp" org.acc4j.samples.bench.JacobiKernels 4096 10
