#!/usr/bin/env bash
# On the GPU machine, from a .gpu/ packed by scripts/gpu-pack.sh, in about 2 minutes: the 5x5 Gaussian blur and the
# 5-point Jacobi sweep (8192^2 doubles) in hand-written CUDA structures (scripts/stencil-kernels.cu) beside the
# compiler's kernels for Gaussblur.blur and Jacobi.sweep under the marching settings given, and the device copy, in
# one process (scripts/stencil-kernels.py: every form checked bit for bit against Java's order first, then CUDA events).
# Settings: STENCIL_FORMS ("NAME=SETTING ..." for acc4j.march; default: the defaults, off, and a few settings),
# STENCIL_ROUNDS (5), STENCIL_SELECT (a substring of the form names). Logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-stencil-kernels}
mkdir -p "$out/ours"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | tee "$out/gpu.txt"
cat .gpu/bench/commit.txt 2>/dev/null | tee "$out/commit.txt"
# shellcheck disable=SC2086
timeout 60 bash .gpu/on-gpu.sh -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:.gpu/lib/annotations.jar" \
  org.acc4j.samples.bench.StencilPtx "$out/ours" ${STENCIL_FORMS:-default=default off=off jgaps=gaps=on u4=unroll2d=4 u8=unroll2d=8 u15=unroll2d=15 f0=fixed=off f0u4=fixed=off,unroll2d=4} \
  > "$out/ours.log" 2>&1
echo "compiler's kernels: exit $?"; cat "$out/ours.log"
timeout 200 python3 scripts/stencil-kernels.py "$out/ours" "${STENCIL_ROUNDS:-5}" "${STENCIL_SELECT:-}" 2>&1 \
  | grep -v -i warning | tee "$out/stencil-kernels.txt" | grep -v '^check .*every element\|^round '
