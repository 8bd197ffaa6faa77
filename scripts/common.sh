# Sourced, from the repository root, by the scripts that pack .gpu/ here (scripts/gpu-pack.sh, scripts/bench-pack.sh)
# and by those that run on the GPU machine from it: what they share.

# The JUnit console that scripts/gpu-pack.sh packs into .gpu/, and its version.
junit_version=1.14.4
junit=.gpu/junit-platform-console-standalone-$junit_version.jar

# The GPU tests' class path: acc.jar, the test classes, the samples and every packed library.
test_cp() {
  echo ".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
}

# select_tests NAME...: the console's selector of each class, or of each method written Class#method.
select_tests() {
  local c
  for c in "$@"; do
    case $c in
      *"#"*) printf -- "--select-method %s " "$c" ;;
      *) printf -- "--select-class %s " "$c" ;;
    esac
  done
}

# gpu_tests LIMIT LOG NAME...: the GPU tests of those classes (or Class#method) in one JVM under the agent's test
# settings, for at most LIMIT seconds, their tree into LOG; prints the last lines of LOG and the failures.
gpu_tests() {
  local limit=$1 log=$2
  shift 2
  # shellcheck disable=SC2046
  timeout "$limit" bash .gpu/on-gpu.sh -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
    -jar "$junit" execute --class-path "$(test_cp)" --include-tag gpu $(select_tests "$@") \
    --details=tree --disable-banner >"$log" 2>&1
  tail -15 "$log"
  grep -a "✘" "$log" | head -20
}

# shared_dir: the shared folder (device runtime, peers) beside the main checkout, also from a linked work tree, where
# it lies beside the main one's .git; ACC4J_SHARED overrides it. For the pack scripts, which run here.
shared_dir() {
  local shared=${ACC4J_SHARED:-$PWD/../shared}
  [ -d "$shared/device" ] || shared=$(cd "$(git rev-parse --git-common-dir)/../../shared" && pwd)
  echo "$shared"
}
