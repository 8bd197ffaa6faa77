#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh), within BUDGET seconds (default 230): staging
# settings compared in one call. The host's copies alone and under DMA, into cached and write-combined pinned memory
# (HostCopyBench, HOST_ARGS); the timeline of a staged copy (TransferTimeline) at TIMELINE_SIZES MiB with the default
# staging and with each setting of TIMELINE_VARIANTS; the transfer table (TransferBench) at TABLE_SIZES MiB with the
# default staging and each setting of TABLE_VARIANTS; then, as far as the budget goes, the timelines of
# MORE_TIMELINE_VARIANTS and the tables of MORE_TABLE_VARIANTS. First of all the GPU tests of COMPARE_TESTS (classes,
# or methods as Class#method), so that what is compared is known to be right. Variants are values
# of -Dacc4j.staging separated by spaces ("default" for none). A step that would not end within the budget is skipped
# and says so. Tables and logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-compare}
mkdir -p "$out"
budget=${BUDGET:-230}
cp=".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar"
# lets the staging write its slots back from the caches (the setting flush), as the agent does
wb="--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
name() { echo "$1" | tr -c 'a-z0-9\n' '_'; }
# runs "$@" with a limit of at most $1 seconds and at least what is left of the budget, or says it is skipped
step() {
  local limit=$1; shift
  local left=$((budget - SECONDS))
  if [ "$left" -lt 8 ]; then
    echo "== skipped (budget of ${budget}s spent): $*"
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  timeout "$limit" "$@"
}
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
  lscpu 2>/dev/null | grep -i "model name\|^CPU(s)\|Thread(s) per core\|L3\|NUMA"
  echo "nproc $(nproc); NUMA nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
  for n in /sys/devices/system/node/node*; do [ -d "$n" ] && echo "$(basename "$n"): cpus $(cat "$n/cpulist")"; done
  cat /sys/fs/cgroup/cpu.max 2>/dev/null
  bash .gpu/on-gpu.sh -version 2>&1 | head -1
} | tee "$out/run-info.txt"
if [ "${HOST_COPY:-1}" != 0 ]; then
  echo "== host copies"
  step 40 bash .gpu/on-gpu.sh -Xmx8g $wb -cp "$cp" org.acc4j.runtime.transfer.HostCopyBench ${HOST_ARGS:-256 4,8,16} \
    2>&1 | tee "$out/host-copy.txt"
fi
if [ -n "${COMPARE_TESTS:-}" ]; then
  echo "== GPU tests: $COMPARE_TESTS"
  tcp="$(test_cp)"
  # shellcheck disable=SC2086
  sel=$(select_tests $COMPARE_TESTS)
  step "${COMPARE_TESTS_TIMEOUT:-60}" bash .gpu/on-gpu.sh $wb -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
    -jar "$junit" execute --class-path "$tcp" --include-tag gpu $sel \
    --details=tree --disable-banner > "$out/gpu-tests.log" 2>&1
  tail -15 "$out/gpu-tests.log"; grep -a "✘" "$out/gpu-tests.log" | head -20
fi
timeline() {
  local v=$1 prop=""
  echo "== timeline: $v"
  [ "$v" != default ] && prop="-Dacc4j.staging=$v"
  step 40 bash .gpu/on-gpu.sh -Xmx8g $wb $prop -cp "$cp" org.acc4j.runtime.transfer.TransferTimeline \
    ${TIMELINE_SIZES:-8,32} > "$out/timeline-$(name "$v").txt" 2>&1
  grep "^| staged\|^| Acc\|^| pinned\|^| host side\|^| device side\|^### \|wake\|^device busy" \
    "$out/timeline-$(name "$v").txt"
}
table() {
  local v=$1 prop=""
  echo "== transfers: $v"
  [ "$v" != default ] && prop="-Dacc4j.staging=$v"
  step 70 bash .gpu/on-gpu.sh -Xmx24g $wb $prop -cp "$cp" org.acc4j.runtime.transfer.TransferBench --no-sweep \
    --sizes ${TABLE_SIZES:-4,8,16,32,64,128,1024} 2>&1 | tee "$out/transfers-$(name "$v").txt"
}
for v in default ${TIMELINE_VARIANTS:-}; do timeline "$v"; done
for v in default ${TABLE_VARIANTS:-}; do table "$v"; done
# then, as far as the budget goes
for v in ${MORE_TIMELINE_VARIANTS:-}; do timeline "$v"; done
for v in ${MORE_TABLE_VARIANTS:-}; do table "$v"; done
echo "== done in ${SECONDS}s"
