#!/usr/bin/env bash
# On the GPU machine, in about 3 minutes: the native ceiling of a staged copy on this host (scripts/xfer-native.c,
# built here with gcc against the CUDA toolkit's driver API): pageable memory to pinned slots by N spinning threads,
# plain or non-temporal stores, pipelined with cuMemcpyHtoDAsync/DtoHAsync, each variant against a pinned cuMemcpy of
# the same size in paired rounds in one process. The host's description first (CPUs, NUMA nodes, caches). To $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-xfer-native}
mkdir -p "$out"
cuda=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")")}
{
  echo "== lscpu"; lscpu
  echo "== NUMA nodes"; ls /sys/devices/system/node; cat /sys/devices/system/node/node*/cpulist 2>/dev/null
  echo "== caches of cpu0"
  for c in /sys/devices/system/cpu/cpu0/cache/index*; do
    echo "L$(cat "$c/level") $(cat "$c/type") $(cat "$c/size") shared with cpus $(cat "$c/shared_cpu_list")"
  done
  echo "== GPU"; nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
  nvidia-smi topo -m 2>/dev/null | head -5
} > "$out/host.txt" 2>&1
cat "$out/host.txt" | grep -v "^Flags"
bin=$out/xfer-native
gcc -O3 -march=native -mavx2 -mclflushopt -mclwb -pthread -I"$cuda/include" -o "$bin" scripts/xfer-native.c \
  -L"$cuda/lib64/stubs" -L"$cuda/targets/x86_64-linux/lib/stubs" -lcuda || { echo "build failed"; exit 1; }
n() { local name=$1; shift; echo "== $name: $*"; timeout "${NATIVE_TIMEOUT:-150}" "$bin" "$@" 2>&1 | tee "$out/native-$name.txt"; }
# the grid from 8 to 64 MiB: threads, chunk sizes, streams, stores, host buffer hot or cold, both directions
n grid --sizes ${NATIVE_SIZES:-8,16,32,64} --threads 4,8,12,16 --chunks 512,1024,2048,4096 --streams 1,2 \
  --stores plain,nt --sources hot,cold --dirs h2d,d2h --rounds ${NATIVE_ROUNDS:-5}
# 256 MiB on a smaller grid, and the threads bound to cores
n large --sizes 256 --threads 8,16 --chunks 1024,4096 --streams 1 --stores plain,nt --sources hot --rounds 5 --hostonly 0
n pinned-threads --sizes 8,32 --threads 8,16 --chunks 1024,2048 --streams 2 --stores plain,nt --sources hot \
  --rounds 7 --pin 1 --hostonly 0
# plain stores written back from the caches (CLWB) by each writer after its piece, or by the issuing thread over the
# whole chunk before its device copy, against plain and non-temporal stores
n writeback --sizes 8,16,32,64 --threads 8,12,16 --chunks 512,1024,2048 --streams 1 --stores plain,nt,clwb,callerclwb \
  --sources hot --dirs h2d --rounds 7 --hostonly 0
