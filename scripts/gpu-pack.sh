#!/usr/bin/env bash
# Packs what a run on the lent GPU machine needs into .gpu/ (git-ignored): the Java runtime (../shared/device/jre.sh),
# acc.jar, the samples, the GPU tests with their class path and the JUnit console, and the peers (../shared/anchors).
# Then, on the GPU machine (the device tool, carrying .gpu): bash scripts/gpu-run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/common.sh
shared=$(shared_dir)
mvn -B -q -DskipTests package
bash "$shared/device/jre.sh" >/dev/null
[ -d .gpu/anchors ] || bash "$shared/anchors/stage.sh" >/dev/null
mkdir -p .gpu/lib .gpu/test-classes
cp acc-agent/target/acc.jar .gpu/acc.jar
cp acc-annotations/target/acc-annotations-*.jar .gpu/lib/annotations.jar
cp samples/target/samples-*.jar .gpu/samples.jar
rm -rf .gpu/test-classes/* && cp -r acc-runtime/target/test-classes/. samples/target/test-classes/. .gpu/test-classes/
# the reduction templates' test kernels, which their GPU test writes its module with
mkdir -p .gpu/test-classes/org/acc4j/templates/reduce && cp ptx-templates/target/test-classes/org/acc4j/templates/reduce/TestKernels.class .gpu/test-classes/org/acc4j/templates/reduce/
# the fuzzer: its generator and harness, and its nests compiled here (the runtime there has no javac)
mvn -B -q -pl acc-compiler -am test-compile
mkdir -p .gpu/test-classes/org/acc4j/compiler && cp -r acc-compiler/target/test-classes/org/acc4j/compiler/fuzz acc-compiler/target/test-classes/org/acc4j/compiler/fixtures acc-compiler/target/test-classes/org/acc4j/compiler/Ptxas.class \
  acc-compiler/target/test-classes/org/acc4j/compiler/Nvcc.class acc-compiler/target/test-classes/org/acc4j/compiler/Golden.class .gpu/test-classes/org/acc4j/compiler/
# the interpreting test runtime, which the conformance sweep's interpreter loader names, and the rewriting class
# loader of the GPU tests that run rewritten fixtures (DeferGpuTest, SitesGpuTest)
mkdir -p .gpu/test-classes/org/acc4j/compiler/site && cp acc-compiler/target/test-classes/org/acc4j/compiler/site/TestRuntime*.class \
  acc-compiler/target/test-classes/org/acc4j/compiler/site/RewritingLoader*.class .gpu/test-classes/org/acc4j/compiler/site/
fuzzcp="acc-compiler/target/test-classes:acc-compiler/target/classes:$(ls acc-annotations/target/acc-annotations-*.jar | head -1)"
# seeds FUZZ_FIRST..FUZZ_FIRST+FUZZ_NESTS-1; a run (scripts/fuzz-run.sh) starts at the same first seed
rm -rf .gpu/fuzz-classes && java -cp "$fuzzcp" org.acc4j.compiler.fuzz.Pack .gpu/fuzz-classes "${FUZZ_FIRST:-1}" "${FUZZ_NESTS:-10000}"
rm -f .gpu/lib/fuzz-nests.jar && jar cf .gpu/lib/fuzz-nests.jar -C .gpu/fuzz-classes . && rm -rf .gpu/fuzz-classes
echo "seeds ${FUZZ_FIRST:-1}..$(( ${FUZZ_FIRST:-1} + ${FUZZ_NESTS:-10000} - 1 )), $(du -h .gpu/lib/fuzz-nests.jar | cut -f1)" > .gpu/fuzz-nests.txt
# the tests run against acc.jar (runtime, compiler, JCuda) and the JUnit console (JUnit itself)
mvn -B -q -N dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:$junit_version -DoutputDirectory="$root/.gpu" >/dev/null
echo "packed .gpu: $(du -sh .gpu | cut -f1)"
