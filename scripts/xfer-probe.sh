#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh and scripts/bench-pack.sh), in about 4 minutes: the
# host's half of a staged copy alone (HostCopyBench; HOST_COPY=0 skips it), the fixed costs of a 1 MiB copy and the transfer table from
# 1 MiB to 1 GiB (TransferBench) with the default staging, the same table for other staging settings
# (XFER_VARIANTS, each a value of -Dacc4j.staging, separated by spaces), then the newcomer's heat equation with the
# runtime's profile, and again with the staging settings of HEAT_VARIANTS; then the GPU test classes of XFER_TESTS.
# Tables and logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-xfer}
mkdir -p "$out"
cp=".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar"
j() { bash .gpu/on-gpu.sh -Xmx24g "$@"; }
if [ "${HOST_COPY:-1}" != 0 ]; then
  echo "== host copies"
  timeout 60 bash .gpu/on-gpu.sh -Xmx8g -cp "$cp" org.acc4j.runtime.transfer.HostCopyBench ${HOST_ARGS:-256 1,2,4,8,16} 2>&1 | tee "$out/host-copy.txt"
fi
echo "== transfers (default staging)"
timeout 80 bash .gpu/on-gpu.sh -Xmx24g -cp "$cp" org.acc4j.runtime.transfer.TransferBench --no-sweep --breakdown \
  --sizes ${XFER_SIZES:-1,2,4,8,16,64,256,1024} 2>&1 | tee "$out/transfers-default.txt"
for v in ${XFER_VARIANTS:-}; do
  echo "== transfers with -Dacc4j.staging=$v"
  timeout 60 bash .gpu/on-gpu.sh -Xmx24g -Dacc4j.staging="$v" -cp "$cp" org.acc4j.runtime.transfer.TransferBench \
    --no-sweep --sizes ${XFER_VARIANT_SIZES:-2,8,64,1024} 2>&1 | tee "$out/transfers-$(echo "$v" | tr -c 'a-z0-9\n' '_').txt"
done
echo "== heat"
timeout 60 bash .gpu/on-gpu.sh -Xmx8g -javaagent:.gpu/acc.jar -Dacc4j.profile=true -cp .gpu/samples.jar:.gpu/lib/annotations.jar \
  org.acc4j.samples.HeatRows 512 200 5 2>&1 | tee "$out/heat.txt" | grep -v "^acc4j: .*  " | tail -40
for v in ${HEAT_VARIANTS:-}; do
  echo "== heat with -Dacc4j.staging=$v"
  timeout 40 bash .gpu/on-gpu.sh -Xmx8g -javaagent:.gpu/acc.jar -Dacc4j.staging="$v" -cp .gpu/samples.jar:.gpu/lib/annotations.jar \
    org.acc4j.samples.HeatRows 512 200 5 2>&1 | tee "$out/heat-$(echo "$v" | tr -c 'a-z0-9\n' '_').txt" | grep "|\|match"
done
if [ -n "${XFER_TESTS:-}" ]; then
  echo "== GPU tests: $XFER_TESTS"
  # shellcheck disable=SC2086
  gpu_tests "${XFER_TESTS_TIMEOUT:-100}" "$out/gpu-tests.log" $XFER_TESTS
fi
