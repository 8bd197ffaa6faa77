#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh): the FP64 tensor-core DGEMM in each candidate shape
# (ACC4J_TENSOR_TILE), then the peers (cuBLAS DGEMM among them), in one call; about 2-3 minutes.
# 1. the tensor-core GPU test: every candidate shape at sizes that are not multiples of a tile, every element
#    against plain Java within the stated bound (TilingGpuTest.tensorCoreProductsLieWithinTheBound);
# 2. DgemmTensor N REPS once per shape, each in a JVM of its own with the compile report on: the relaxed product's
#    time (tensor cores) and the exact register-tiled one's, and 20,000 sampled elements checked against the bound;
# 3. the peers (shared/anchors): cuBLAS DGEMM at 2048, 4096 and 8192.
# Logs to $OUT: tc-test.log, dgemm-<shape>.txt, tc-summary.txt, anchors.log.
# Settings: TC_TILES (shapes, default every candidate), TC_N (4096), TC_REPS (5), ANCHORS (1), TC_TEST (1),
# TC_BUDGET_S (200: no shape starts after that many seconds).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-tc}
mkdir -p "$out"
cp="$(ls .gpu/lib/*.jar | tr '\n' ':')"
# the candidates (TC_TILES, else their names as the packed compiler holds them, in Tiling.TensorTile.CANDIDATES' order)
tiles=${TC_TILES:-$(python3 -c '
import re, sys, zipfile
b = zipfile.ZipFile(".gpu/acc.jar").read("org/acc4j/compiler/pass/Tiling$TensorTile.class")
seen = []
for n in re.findall(rb"[0-9]+x[0-9]+w[0-9]+k[0-9]+[a-z0-9]*", b):
    if n.decode() not in seen:
        seen.append(n.decode())
print(" ".join(seen))')}
echo "shapes: $tiles"
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null | tee "$out/tc-summary.txt"
if [ "${TC_TEST:-1}" = 1 ]; then
  echo "== tensor-core GPU test (every shape)"
  timeout "${TEST_TIMEOUT:-150}" bash .gpu/on-gpu.sh -jar "$junit" execute \
    --class-path ".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$cp" --include-tag gpu \
    --select-method org.acc4j.samples.TilingGpuTest#tensorCoreProductsLieWithinTheBound --details=tree \
    --disable-banner 2>&1 | grep -v "^acc4j: .*  " | tee "$out/tc-test.log" | tail -15
fi
for t in $tiles; do
  if [ $((SECONDS - start)) -gt "${TC_BUDGET_S:-200}" ]; then
    echo "skipped: $t (past ${TC_BUDGET_S:-200} s)" | tee -a "$out/tc-summary.txt"
    continue
  fi
  echo "== DgemmTensor ${TC_N:-4096} ${TC_REPS:-5}, tensor tile $t"
  ACC4J_TENSOR_TILE=$t timeout "${RUN_TIMEOUT:-45}" bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -Dacc4j.report=true \
    -cp .gpu/samples.jar:.gpu/lib/annotations.jar org.acc4j.samples.DgemmTensor "${TC_N:-4096}" "${TC_REPS:-5}" \
    >"$out/dgemm-$t.txt" 2>&1
  echo "exit $?" >>"$out/dgemm-$t.txt"
  grep -a "tensor tile\|ptxas\|registers" "$out/dgemm-$t.txt" | head -3 | cut -c1-240
  line=$(grep -a "flat relaxed" "$out/dgemm-$t.txt")
  check=$(grep -a "dgemm tensor cores:" "$out/dgemm-$t.txt" | tail -1)
  exact=$(grep -a "flat default" "$out/dgemm-$t.txt")
  echo "$t | $line | $check" | tee -a "$out/tc-summary.txt"
  echo "$t | $exact" | tee -a "$out/tc-summary.txt"
done
if [ "${ANCHORS:-1}" = 1 ]; then
  echo "== peers"
  bash .gpu/anchors/run.sh 2>&1 | tee "$out/anchors.log" | grep -i "dgemm"
  grep -i "cublas dgemm" "$out/anchors.log" >>"$out/tc-summary.txt"
fi
