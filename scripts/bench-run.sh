#!/usr/bin/env bash
# On the GPU machine: the JMH benchmarks under -javaagent:acc.jar, one JMH run per benchmark class (each writes its
# own JSON, so a class cut short by the time budget costs only itself), then the peers (shared/anchors) in the same
# run. Everything goes to $OUT: run-info.txt, jmh-<Name>.json and .log per class, anchors.log. A full run (BENCH
# unset) ends its JMH part with the bounds-check pass (BENCH_CHECKED): for each of its classes, gpuKernel of the
# default variant once as usual (jmh-<Name>-hoisted.json) and once with -Dacc4j.hoist=off (jmh-<Name>-checked.json),
# every bounds check kept in the kernel, back to back so that both see the same machine.
#
# Settings (environment):
#   BENCH            classes to run, without "Bench" (default: every *Bench class of the jar, ~4-5 min with the peers)
#   BENCH_BUDGET_S   seconds for the JMH part; a class that would start after it is skipped and listed (default 390)
#   BENCH_FORKS      JMH forks (default 0: every class in one JVM with one CUDA context; a fork costs ~3 s of start-up)
#   BENCH_JMH_ARGS   more JMH options, e.g. "-p size=4096" or "-i 5" (they override the classes' annotations)
#   BENCH_JVM_ARGS   more JVM options for the main pass, e.g. "-Dacc4j.hoist=off"
#   BENCH_TAG        names the main pass's files jmh-<Name>-<tag>.json/.log (default: no tag), e.g. "checked"
#   BENCH_CHECKED    classes of the bounds-check pass (default "Jacobi Dgemm" on a full run, none with BENCH set;
#                    "" for none): gpuKernel with -p variant=default, tagged "hoisted", then with -Dacc4j.hoist=off,
#                    tagged "checked"; BENCH_JMH_ARGS apply to it too
#   BENCH_JAVA       the java command (default: bash .gpu/on-gpu.sh, the carried runtime; "java" on a dev machine)
#   BENCH_ALLOW_HOST 1 to time GPU modes even where they run on the host (smoke runs without a GPU; the report says so)
#   ANCHORS          0 to skip the peers (default 1)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-bench}
mkdir -p "$out"
start=$SECONDS
budget=${BENCH_BUDGET_S:-420}
read -r -a java <<<"${BENCH_JAVA:-bash .gpu/on-gpu.sh}"
set=${BENCH:-VectorAdd Copy Jacobi Transpose Dgemm Gaussblur Stencil Laplacian Wave13pt}
if [ -z "${BENCH:-}" ]; then
  # any other *Bench class in the jar (DotBench, when it comes) joins the default set
  for c in $("${java[@]}" -jar .gpu/bench/benchmarks.jar -l 2>/dev/null | sed -n 's/^org\.acc4j\.jmh\.\([A-Za-z0-9]*\)Bench\..*/\1/p' | sort -u); do
    case " $set " in *" $c "*) ;; *) set="$set $c";; esac
  done
fi
if [ -z "${BENCH:-}" ]; then checked=${BENCH_CHECKED-Jacobi Dgemm}; else checked=${BENCH_CHECKED:-}; fi
jvm=(-javaagent:.gpu/acc.jar)
[ "${BENCH_ALLOW_HOST:-0}" = 1 ] && jvm+=(-Dbench.allowHost=true)
read -r -a extra <<<"${BENCH_JVM_ARGS:-}"
info=$(
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  cat .gpu/bench/commit.txt 2>/dev/null
  if command -v nvidia-smi >/dev/null; then
    echo "gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
    echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
    echo "cuda: $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)"
  else
    echo "gpu: none (no nvidia-smi on this machine)"
  fi
  echo "host: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //')"
  echo "set: $set"
  echo "jmh: -f ${BENCH_FORKS:-0} ${BENCH_JMH_ARGS:-}"
  echo "jvm: ${BENCH_JVM_ARGS:-none}${BENCH_TAG:+ (files tagged $BENCH_TAG)}"
  echo "allow-host: ${BENCH_ALLOW_HOST:-0}"
  if [ -n "$checked" ]; then
    echo "checked-set: $checked"
    echo "checked-pass: gpuKernel -p variant=default ${BENCH_JMH_ARGS:-}; tag hoisted: default options; tag checked: -Dacc4j.hoist=off"
  fi
)
echo "$info" | tee -a "$out/run-info.txt"

# run_class NAME TAG REGEX [JVM OPTION...] -- [JMH OPTION...]: one JMH run of one class into jmh-NAME[-TAG].json/.log
run_class() {
  local b=$1 t=$2 regex=$3 opts=() args=()
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  args=("$@")
  local name="${b}Bench${t:+ [$t]}" file="jmh-$b${t:+-$t}"
  local left=$((budget - (SECONDS - start)))
  if [ "$left" -lt 20 ]; then
    echo "skipped: $name (less than 20 s of the ${budget} s budget left)" | tee -a "$out/run-info.txt"
    return
  fi
  echo "== $name (${left} s of the budget left)"
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout -k 5 "$left" "${java[@]}" "${jvm[@]}" ${opts[@]+"${opts[@]}"} -jar .gpu/bench/benchmarks.jar "$regex" \
    -f "${BENCH_FORKS:-0}" -rf json -rff "$out/$file.json" ${BENCH_JMH_ARGS:-} ${args[@]+"${args[@]}"} \
    >"$out/$file.log" 2>&1
  local rc=$?
  # the result table, where each GPU setup says it ran, and anything that was refused
  grep -E '^[A-Z][A-Za-z0-9]*Bench\.|^Benchmark |^# .* on .*(resident|copied)|HOST RUN|acc4j: |Exception: ' "$out/$file.log" | tail -60
  echo "$name: exit $rc, $((SECONDS - t0)) s" | tee -a "$out/run-info.txt"
}

for b in $set; do
  run_class "$b" "${BENCH_TAG:-}" "\.${b}Bench\." ${extra[@]+"${extra[@]}"}
done
# bounds checks in the kernel against hoisted to the host: the same benchmark twice, back to back
for b in $checked; do
  run_class "$b" hoisted "\.${b}Bench\.gpuKernel\$" -- -p variant=default
  run_class "$b" checked "\.${b}Bench\.gpuKernel\$" -Dacc4j.hoist=off -- -p variant=default
done
echo "jmh: $((SECONDS - start)) s" | tee -a "$out/run-info.txt"
if [ "${ANCHORS:-1}" = 1 ]; then
  echo "== peers"
  t0=$SECONDS
  bash .gpu/anchors/run.sh 2>&1 | tee "$out/anchors.log"
  echo "anchors: $((SECONDS - t0)) s" | tee -a "$out/run-info.txt"
fi
echo "total: $((SECONDS - start)) s" | tee -a "$out/run-info.txt"
