#!/usr/bin/env bash
# Packs what a benchmark run on the lent GPU machine needs into .gpu/ (git-ignored): the Java runtime
# (shared/device/jre.sh), acc.jar, the JMH jar (jmh/target/benchmarks.jar), the commit it was built from, and the
# peers (shared/anchors). Then, on the GPU machine (the device tool, carrying .gpu): bash scripts/bench-run.sh
# Leaves gpu-pack.sh's files alone; both packs can share .gpu/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/common.sh
shared=$(shared_dir)
mvn -B -q -pl acc-agent,jmh -am package -DskipTests
bash "$shared/device/jre.sh" >/dev/null
[ -d .gpu/anchors ] || bash "$shared/anchors/stage.sh" >/dev/null
mkdir -p .gpu/bench
cp acc-agent/target/acc.jar .gpu/acc.jar
cp jmh/target/benchmarks.jar .gpu/bench/benchmarks.jar
{
  echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!docs' || echo ' (with uncommitted changes)')"
  echo "branch: $(git rev-parse --abbrev-ref HEAD)"
  echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >.gpu/bench/commit.txt
echo "packed .gpu for the benchmarks: $(du -sh .gpu | cut -f1) ($(cat .gpu/bench/commit.txt | head -1))"
