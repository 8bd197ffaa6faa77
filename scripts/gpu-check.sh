#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu-pack.sh here (the device tool carrying .gpu): every GPU test (the real-code
# samples under the agent included), then the Jacobi time loop inside a method against the resident sweep, then the
# transfer table. Logs go to $OUT when it is set.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-out}
mkdir -p "$out/numerics"
j() { bash .gpu/on-gpu.sh "$@"; }
cp="$(test_cp)"
echo "== GPU tests"
ACC4J_FUZZ_NESTS=${FUZZ_NESTS:-600} timeout "${TEST_TIMEOUT:-420}" bash .gpu/on-gpu.sh -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar -Dacc4j.report.dir="$out/numerics" \
  -jar "$junit" execute --class-path "$cp" \
  --include-tag gpu --select-package org.acc4j.runtime --select-package org.acc4j.samples ${GPU_TESTS_EXTRA:-} \
  --exclude-classname '.*FaultRecoveryGpuTest' --details=tree --disable-banner > "$out/gpu-tests.log" 2>&1
tail -15 "$out/gpu-tests.log"
grep -a "✘" "$out/gpu-tests.log" | head -20
grep -ah "runs on the host\|machinery" "$out"/numerics/*.stderr | sort | uniq -c | head -20
echo "== the fault test (it loses the device for the rest of its process)"
bash .gpu/on-gpu.sh -jar "$junit" execute --class-path "$cp" --include-tag gpu \
  --select-class org.acc4j.runtime.FaultRecoveryGpuTest --disable-banner --details=summary > "$out/fault.log" 2>&1
grep -a "tests successful\|tests failed" "$out/fault.log"
echo "== Jacobi inside the method"
ACC4J_REPORT=1 j -javaagent:.gpu/acc.jar -cp .gpu/samples.jar:.gpu/lib/annotations.jar \
  org.acc4j.samples.JacobiInMethod ${JACOBI_ARGS:-8192 100 3} > "$out/jacobi.log" 2>&1
grep -v "^acc4j: .*  " "$out/jacobi.log" | tail -30
echo "== transfers"
j -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar" org.acc4j.runtime.transfer.TransferBench \
  ${TRANSFER_ARGS:---no-sweep} > "$out/transfers.log" 2>&1
tail -30 "$out/transfers.log"
