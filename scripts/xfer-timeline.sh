#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh), in about 3 minutes: where the time of a staged copy
# goes (org.acc4j.runtime.transfer.TransferTimeline) at TIMELINE_SIZES MiB (default 8,32), with the default staging,
# then with each staging setting of TIMELINE_VARIANTS (values of -Dacc4j.staging separated by spaces); then the
# transfer table (TransferBench) from 4 MiB to 1 GiB with the default staging, and again with each setting of
# TABLE_VARIANTS; then the GPU test classes of TIMELINE_TESTS (fully qualified, separated by spaces). Tables and logs
# to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-timeline}
mkdir -p "$out"
cp=".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | tee "$out/run-info.txt"
lscpu 2>/dev/null | grep -i "model name\|^CPU(s)\|Thread(s) per core\|L3\|NUMA node(s)" | tee -a "$out/run-info.txt"
{ echo "nproc $(nproc)"; cat /sys/fs/cgroup/cpu.max 2>/dev/null; java -version 2>&1 | head -1; } | tee -a "$out/run-info.txt"
echo "== timeline (default staging)"
timeout 50 bash .gpu/on-gpu.sh -Xmx8g -cp "$cp" org.acc4j.runtime.transfer.TransferTimeline ${TIMELINE_SIZES:-8,32} \
  2>&1 | tee "$out/timeline-default.txt"
for v in ${TIMELINE_VARIANTS:-}; do
  echo "== timeline with -Dacc4j.staging=$v"
  timeout 40 bash .gpu/on-gpu.sh -Xmx8g -Dacc4j.staging="$v" -cp "$cp" org.acc4j.runtime.transfer.TransferTimeline \
    ${TIMELINE_SIZES:-8,32} 2>&1 | tee "$out/timeline-$(echo "$v" | tr -c 'a-z0-9\n' '_').txt" | grep "^|\|^##\|wake\|plan"
done
if [ "${TIMELINE_TABLE:-1}" != 0 ]; then
  echo "== transfers (default staging)"
  timeout 70 bash .gpu/on-gpu.sh -Xmx24g -cp "$cp" org.acc4j.runtime.transfer.TransferBench --no-sweep \
    --sizes ${TABLE_SIZES:-4,8,16,32,64,128,512,1024} 2>&1 | tee "$out/transfers-default.txt"
  for v in ${TABLE_VARIANTS:-}; do
    echo "== transfers with -Dacc4j.staging=$v"
    timeout 70 bash .gpu/on-gpu.sh -Xmx24g -Dacc4j.staging="$v" -cp "$cp" org.acc4j.runtime.transfer.TransferBench \
      --no-sweep --sizes ${TABLE_SIZES:-4,8,16,32,64,128,512,1024} 2>&1 | tee "$out/transfers-$(echo "$v" | tr -c 'a-z0-9\n' '_').txt"
  done
fi
if [ -n "${TIMELINE_TESTS:-}" ]; then
  echo "== GPU tests: $TIMELINE_TESTS"
  # shellcheck disable=SC2086
  gpu_tests "${TIMELINE_TESTS_TIMEOUT:-100}" "$out/gpu-tests.log" $TIMELINE_TESTS
fi
