package org.acc4j.samples.numerics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.acc4j.Kernels;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs each numerics sample's {@code main} in a child JVM twice, plainly and under {@code -javaagent:acc.jar}, and
 * compares the two {@code checksum:} lines (a SHA-256 over the raw bits of every output element and scalar). Each
 * run must exit with 0 after its own verification (a known-good property of plain Java: CG's residuals and
 * eigenvalue estimates, LU's reconstruction, the FFT's inverse, ...).
 *
 * <p>Two variants:
 * <ul>
 *   <li>{@link #agentOnTheHostMatchesPlainJava}: the agent run has {@code ACC_DEVICE_TYPE=host}; needs no GPU,
 *       runs in CI. Every sample must give the same checksum.</li>
 *   <li>{@link #agentOnTheGpuMatchesPlainJava} (tag {@code gpu}): runs only with {@code -Dacc4j.gpu=true} (it skips,
 *       saying so, otherwise); the agent run has no {@code ACC_DEVICE_TYPE} and {@code ACC4J_REPORT=1}, and its
 *       stdout and stderr are saved as {@code <Sample>.gpu.stdout} / {@code .gpu.stderr} in
 *       {@code -Dacc4j.report.dir}, else {@code $OUT}, else {@code target/numerics-gpu}. Samples without a
 *       floating-point sum reduction must give the same checksum; CG and MG sum in the device's order, which
 *       differs from Java's left-to-right order in the last bits, and FourierSeries calls {@code Math.pow},
 *       {@code cos} and {@code sin}, and Julia {@code Math.atan2}, which the device computes within 1 ulp as
 *       {@code Math}'s contract allows, so for them the {@code result:} scalars must agree within 1e-10 relative (1e-12 absolute) and the checksums
 *       are only reported.</li>
 * </ul>
 * The agent jar is {@code ../acc-agent/target/acc.jar} (from the samples module), or {@code -Dacc4j.agent.jar};
 * the child's class path is where this JVM found the samples and the annotations, or {@code -Dacc4j.samples.cp}.
 */
class NumericsRunTest {
    /** A sample: its class's simple name, and whether its checksum must match on the GPU too. */
    record Sample(String name, boolean exactOnDevice, String... args) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Sample> SAMPLES = List.of(
            new Sample("CG", false),
            new Sample("MG", false),
            new Sample("Jacobi2D", true),
            new Sample("Heat2D", true),
            new Sample("SparseCompRow", true),
            new Sample("LU", true),
            new Sample("FFT", true),
            new Sample("Mandelbrot", true),
            new Sample("NBody", true),
            new Sample("Particles", true),
            new Sample("Dense", true),
            new Sample("FourierSeries", false),
            new Sample("Linpack", true),
            new Sample("Julia", false));

    static Stream<Sample> samples() {
        return SAMPLES.stream();
    }

    static Path agentJar() {
        return Path.of(System.getProperty("acc4j.agent.jar", "../acc-agent/target/acc.jar")).toAbsolutePath();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void agentOnTheHostMatchesPlainJava(Sample s) throws Exception {
        Path agent = agentJar();
        Assumptions.assumeTrue(Files.isRegularFile(agent),
                "no agent jar at " + agent + ": run mvn verify from the root to package it first");
        Run plain = run(s, null, Map.of());
        Run host = run(s, agent, Map.of("ACC_DEVICE_TYPE", "host"));
        for (Run r : List.of(plain, host)) {
            r.assertVerified();
        }
        assertTrue(host.stderr.contains("acc4j:"), () -> "the agent said nothing on stderr" + host);
        assertEquals(plain.checksum(), host.checksum(), () -> s + ": the agent's host run differs" + plain + host);
        assertEquals(plain.results(), host.results(), () -> s + ": results" + plain + host);
    }

    /**
     * The agent on the multicore target ({@code ACC_DEVICE_TYPE=multicore}, three threads): every nest that compiles runs
     * on the host's cores (none falls back at run time), and the results are plain Java's: exactly where Java defines
     * them, within the reductions' rounding otherwise.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void agentOnTheHostsCoresMatchesPlainJava(Sample s) throws Exception {
        Path agent = agentJar();
        Assumptions.assumeTrue(Files.isRegularFile(agent),
                "no agent jar at " + agent + ": run mvn verify from the root to package it first");
        Run plain = run(s, null, Map.of());
        Run cores = run(s, agent, Map.of("ACC_DEVICE_TYPE", "multicore", "ACC_NUM_CORES", "3", "ACC4J_REPORT", "1"));
        plain.assertVerified();
        cores.assertVerified();
        assertTrue(cores.stderr.lines().noneMatch(l -> l.contains("the multicore target failed")
                || l.contains("runs as plain Java for this call")), () -> s + ": a nest fell back at run time" + cores);
        assertTrue(cores.stderr.contains("ran on the host's cores (multicore): 3 threads"),
                () -> s + ": no nest ran on the host's cores" + cores);
        if (s.exactOnDevice()) {
            assertEquals(plain.checksum(), cores.checksum(), () -> s + ": the multicore run differs" + plain + cores);
            assertEquals(plain.results(), cores.results(), () -> s + ": results" + plain + cores);
        } else {
            Map<String, String> expected = plain.results();
            Map<String, String> actual = cores.results();
            assertEquals(expected.keySet(), actual.keySet(), () -> s + ": result names" + plain + cores);
            for (String key : expected.keySet()) {
                assertClose(s + " result " + key, expected.get(key), actual.get(key));
            }
        }
    }

    @Tag("gpu")
    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void agentOnTheGpuMatchesPlainJava(Sample s) throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("acc4j.gpu"),
                "GPU variant skipped: set -Dacc4j.gpu=true on a machine with a CUDA GPU (and -Dacc4j.agent.jar)");
        Path agent = agentJar();
        assertTrue(Files.isRegularFile(agent), "no agent jar at " + agent + " (set -Dacc4j.agent.jar)");
        Run plain = run(s, null, Map.of());
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ACC_DEVICE_TYPE", null);
        env.put("ACC4J_REPORT", "1");
        Run gpu = run(s, agent, env);
        Path dir = reportDir();
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(s.name() + ".gpu.stdout"), gpu.stdout);
        Files.writeString(dir.resolve(s.name() + ".gpu.stderr"), gpu.stderr);
        Files.writeString(dir.resolve(s.name() + ".plain.stdout"), plain.stdout);
        long fallbacks = gpu.stderr.lines().filter(l -> l.contains("runs on the host")).count();
        String title = String.valueOf(gpu.line(s.name() + ", "));
        System.out.println(s + ": running on " + title.substring(title.lastIndexOf("running on: ") + 1 + 11) + "; " + fallbacks
                + " line(s) of stderr say a method runs on the host (see " + s.name() + ".gpu.stderr)");
        plain.assertVerified();
        gpu.assertVerified();
        // every nest that compiles ran on the device: no failure of the machinery, no launch sent to the host
        assertTrue(gpu.stderr.lines().noneMatch(l -> l.contains("the offload machinery failed")
                || l.contains("runs on the host for this call")), () -> s + ": a nest fell back at run time" + gpu);
        assertTrue(gpu.stderr.contains("ran on the device"), () -> s + ": no nest ran on the device" + gpu);
        if (s.exactOnDevice()) {
            assertEquals(plain.checksum(), gpu.checksum(), () -> s + ": the GPU run differs" + plain + gpu);
            assertEquals(plain.results(), gpu.results(), () -> s + ": results" + plain + gpu);
        } else {
            System.out.println(s + ": checksum " + (plain.checksum().equals(gpu.checksum())
                    ? "identical to plain Java" : "differs from plain Java (the device's order of sums, or its Math routines"
                    + " within 1 ulp)"));
            Map<String, String> expected = plain.results();
            Map<String, String> actual = gpu.results();
            assertEquals(expected.keySet(), actual.keySet(), () -> s + ": result names" + plain + gpu);
            for (String key : expected.keySet()) {
                assertClose(s + " result " + key, expected.get(key), actual.get(key));
            }
        }
    }

    static Path reportDir() {
        String dir = System.getProperty("acc4j.report.dir");
        if (dir == null) {
            dir = System.getenv("OUT");
        }
        return Path.of(dir != null ? dir : "target/numerics-gpu");
    }

    static void assertClose(String what, String expected, String actual) {
        if (!expected.contains(".") && !expected.contains("E") && !expected.contains("N")) {
            assertEquals(expected, actual, what);
            return;
        }
        double e = Double.parseDouble(expected);
        double a = Double.parseDouble(actual);
        assertTrue(Math.abs(e - a) <= 1e-10 * Math.max(Math.abs(e), Math.abs(a)) + 1e-12,
                () -> what + ": expected " + expected + ", got " + actual);
    }

    /** The child's class path: the samples' classes and the annotations, as this JVM found them. */
    static String classPath() {
        String cp = System.getProperty("acc4j.samples.cp");
        if (cp != null) {
            return cp;
        }
        List<String> parts = new ArrayList<>();
        for (Class<?> c : List.of(CG.class, Kernels.class)) {
            try {
                String p = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
                if (!parts.contains(p)) {
                    parts.add(p);
                }
            } catch (java.net.URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return String.join(File.pathSeparator, parts);
    }

    /** Runs a sample's main; {@code agent} null for plain Java; an env value of null removes the variable. */
    static Run run(Sample s, Path agent, Map<String, String> env) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java));
        if (agent != null) {
            cmd.add("-javaagent:" + agent);
        }
        cmd.addAll(List.of("-cp", classPath(), "org.acc4j.samples.numerics." + s.name()));
        cmd.addAll(List.of(s.args()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        env.forEach((k, v) -> {
            if (v == null) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> out = read(p, false);
        CompletableFuture<String> err = read(p, true);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(s + " did not finish in 300 s: " + cmd);
        }
        return new Run(String.join(" ", cmd), p.exitValue(), out.get(10, TimeUnit.SECONDS),
                err.get(10, TimeUnit.SECONDS));
    }

    record Run(String command, int exit, String stdout, String stderr) {
        String checksum() {
            String sum = line("checksum: ");
            assertNotNull(sum, () -> "no checksum line" + this);
            return sum + " (" + line("checksum values: ") + " values)";
        }

        /** The {@code result: name value} lines, in order. */
        Map<String, String> results() {
            Map<String, String> m = new LinkedHashMap<>();
            for (String l : stdout.split("\n")) {
                if (l.startsWith("result: ")) {
                    String[] f = l.substring(8).trim().split(" ");
                    m.put(f[0], f[1]);
                }
            }
            return m;
        }

        String line(String prefix) {
            for (String l : stdout.split("\n")) {
                if (l.startsWith(prefix)) {
                    return l.substring(prefix.length()).trim();
                }
            }
            return null;
        }

        void assertVerified() {
            assertEquals(0, exit, () -> "exit code" + this);
            assertEquals("SUCCESSFUL", line("verification: "), () -> "verification" + this);
        }

        @Override
        public String toString() {
            return "\n$ " + command + "\nexit " + exit + "\nstdout:\n" + stdout + "stderr:\n" + stderr;
        }
    }

    private static CompletableFuture<String> read(Process p, boolean stderr) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String((stderr ? p.getErrorStream() : p.getInputStream()).readAllBytes(),
                        StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, r -> {
            // a thread of its own for each stream: the common pool may have a single thread on a small machine
            Thread t = new Thread(r, "read " + (stderr ? "stderr" : "stdout"));
            t.setDaemon(true);
            t.start();
        });
    }
}
