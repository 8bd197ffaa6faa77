#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh): implicit data regions whose loops read and write
# their arrays on the host. The GPU tests of implicit regions and of the present table's windowed updates, then the
# HeatReads harness (a host read every k steps, a boundary row written each step) against plain Java, with HeatRows
# (no host accesses) beside it, and RelaxReads (1-D: a read every k steps, one boundary element each step). Logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-reads}
mkdir -p "$out"
j() { bash .gpu/on-gpu.sh "$@"; }
echo "== GPU tests of implicit data regions"
timeout 150 bash .gpu/on-gpu.sh -jar "$junit" execute \
  --class-path "$(test_cp)" \
  --include-tag gpu --select-class org.acc4j.samples.sites.LoopRegionsGpuTest --details=tree --disable-banner 2>&1 \
  | tee "$out/gpu-tests.log" | tail -30
cp=".gpu/samples.jar:.gpu/lib/annotations.jar"
h() { local name=$1; shift; echo "== $name"; timeout 60 bash .gpu/on-gpu.sh -Xmx16g -javaagent:.gpu/acc.jar -cp "$cp" "$@" \
  2>&1 | grep -v "^acc4j: .*  " | tee "$out/$name.txt" | tail -12; }
h heat-reads-512 org.acc4j.samples.HeatReads 512 200 5 10
h heat-reads-1024 org.acc4j.samples.HeatReads 1024 200 5 10
h heat-reads-512-every1 org.acc4j.samples.HeatReads 512 200 5 1
h heat-rows-512 org.acc4j.samples.HeatRows 512 200 5
h relax-reads org.acc4j.samples.RelaxReads 4194304 200 5 100
h relax-reads-every10 org.acc4j.samples.RelaxReads 4194304 200 5 10
echo "== the profile of the unchanged form (ACC4J_REPORT=1)"
ACC4J_REPORT=1 timeout 60 bash .gpu/on-gpu.sh -Xmx16g -javaagent:.gpu/acc.jar -cp "$cp" org.acc4j.samples.HeatReads 512 200 2 10 \
  > "$out/heat-reads-report.txt" 2>&1; grep -v "^acc4j: .*  " "$out/heat-reads-report.txt" | tail -40
