#!/usr/bin/env bash
# On the GPU machine: the GPU tests, the samples under -javaagent:acc.jar, then the peers, all in one run.
# Logs go to $OUT when it is set.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-out}
mkdir -p "$out"
j() { bash .gpu/on-gpu.sh "$@"; }
echo "== GPU tests"
j --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar "$junit" execute --class-path "$(test_cp)" \
  --include-tag gpu --select-package org.acc4j.runtime --select-package org.acc4j.samples ${GPU_TESTS_EXTRA:-} --details=tree --disable-banner 2>&1 | tee "$out/gpu-tests.log"
echo "== samples"
for s in ${SAMPLES:-VectorAdd Saxpy Dot Jacobi Dgemm Transpose Gaussblur Stencil Laplacian Wave13pt}; do
  case $s in VectorAdd|Saxpy) a="${SAMPLE_N:-67108864} 20";; Dot) a="${DOT_N:-134217728} 20";; *) a="";; esac
  j -javaagent:.gpu/acc.jar -Dacc4j.report=${REPORT:-false} -cp .gpu/samples.jar:.gpu/lib/annotations.jar org.acc4j.samples.$s $a 2>&1 | tee -a "$out/samples.log"
done
if [ "${ANCHORS:-1}" = 1 ]; then
  echo "== peers"
  bash .gpu/anchors/run.sh 2>&1 | tee "$out/anchors.log"
fi
