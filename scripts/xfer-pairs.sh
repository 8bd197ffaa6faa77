#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh), in about 2 minutes: staging settings compared in
# paired, interleaved rounds in one process (org.acc4j.runtime.transfer.TransferPairs): each setting of
# PAIRS_VARIANTS (values of -Dacc4j.staging separated by spaces; "default" for none, first) against pinned copies and
# against the first, at PAIRS_SIZES MiB, PAIRS_ROUNDS rounds; once with the staging threads roused before each copy
# as an allocation rouses them, once back to back (PAIRS_BACK=0: not). Then the transfer table of TransferBench at the
# sizes of PAIRS_TABLE (MiB, e.g. 4,8,16,32,64,128,1024; none by default), and the GPU tests of PAIRS_TESTS. To $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-pairs}
mkdir -p "$out"
cp=".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar"
# lets the staging write its slots back from the caches (the setting flush), as the agent does
wb="--add-exports java.base/jdk.internal.misc=ALL-UNNAMED"
variants=${PAIRS_VARIANTS:-default}
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null; echo "nproc $(nproc)"; } | tee "$out/run-info.txt"
echo "== paired rounds, staging threads roused before each copy"
timeout "${PAIRS_TIMEOUT:-100}" bash .gpu/on-gpu.sh -Xmx16g $wb -cp "$cp" org.acc4j.runtime.transfer.TransferPairs \
  --sizes "${PAIRS_SIZES:-8,16,32,64,128}" --rounds "${PAIRS_ROUNDS:-31}" $variants 2>&1 | tee "$out/pairs-roused.txt"
if [ "${PAIRS_BACK:-1}" != 0 ]; then
  echo "== paired rounds, back to back"
  timeout "${PAIRS_TIMEOUT:-100}" bash .gpu/on-gpu.sh -Xmx16g $wb -cp "$cp" org.acc4j.runtime.transfer.TransferPairs \
    --back-to-back --sizes "${PAIRS_SIZES:-8,16,32,64,128}" --rounds "${PAIRS_ROUNDS:-31}" $variants 2>&1 \
    | tee "$out/pairs-back-to-back.txt"
fi
if [ -n "${PAIRS_TABLE:-}" ]; then
  # the runtime's own copies (Acc.copyin, copyout, both updates) with the default staging, sizes PAIRS_TABLE MiB
  echo "== transfers (TransferBench, default staging)"
  timeout "${PAIRS_TABLE_TIMEOUT:-80}" bash .gpu/on-gpu.sh -Xmx24g $wb -cp "$cp" org.acc4j.runtime.transfer.TransferBench \
    --no-sweep --sizes "$PAIRS_TABLE" 2>&1 | tee "$out/transfers-default.txt"
fi
if [ -n "${PAIRS_TESTS:-}" ]; then
  echo "== GPU tests: $PAIRS_TESTS"
  tcp=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
  sel=$(for c in $PAIRS_TESTS; do case $c in *"#"*) printf -- "--select-method %s " "$c";; *) printf -- "--select-class %s " "$c";; esac; done)
  timeout "${PAIRS_TESTS_TIMEOUT:-120}" bash .gpu/on-gpu.sh $wb -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
    -jar .gpu/junit-platform-console-standalone-1.14.4.jar execute --class-path "$tcp" --include-tag gpu $sel \
    --details=tree --disable-banner > "$out/gpu-tests.log" 2>&1
  tail -15 "$out/gpu-tests.log"; grep -a "✘" "$out/gpu-tests.log" | head -20
fi
