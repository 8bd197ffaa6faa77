package org.acc4j.samples.multicore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Samples under {@code -javaagent:acc.jar} with {@code ACC_DEVICE_TYPE=multicore} and {@code ACC_NUM_CORES=3}: the
 * nests run on the multicore target (said at start-up with the thread count), results match plain Java; many threads
 * at once; exceptions thrown inside chunks. Needs the agent jar ({@code mvn verify} packages it first).
 */
class MulticorePathTest {
    static final Path AGENT = Path.of("../acc-agent/target/acc.jar");

    @ParameterizedTest
    @ValueSource(strings = {"VectorAdd", "Saxpy", "Pipeline"})
    void samplesRunOnTheHostsCores(String sample) throws Exception {
        String[] out = run(List.of("../acc-annotations/target/classes", "target/classes"), "org.acc4j.samples." + sample,
                "100000", "3");
        assertTrue(out[0].contains("all 100000 elements match plain Java"), () -> sample + out[2]);
        assertTrue(out[0].contains("running on: host (multicore, 3 threads)"), () -> sample + out[2]);
        assertTrue(out[1].contains("run on the host's cores (multicore), 3 threads (ACC_NUM_CORES=3)"), () -> sample + out[2]);
    }

    @Test
    void manyThreadsAndExceptionsInsideChunks() throws Exception {
        String[] out = run(List.of("../acc-annotations/target/classes", "target/classes", "target/test-classes"),
                MulticoreStress.class.getName(), "12", "20");
        assertTrue(out[0].contains("stress: 12 threads x 20 calls match plain Java"), out[2]);
        assertTrue(out[0].contains("exceptions: java.lang.ArrayIndexOutOfBoundsException: Index -4 out of bounds for"
                + " length 100000"), out[2]);
        assertTrue(out[0].matches("(?s).*scale: [1-9]\\d* nests on the multicore target, 0 as plain Java.*"), out[2]);
    }

    /** {stdout, stderr, both for messages}. */
    private static String[] run(List<String> cp, String main, String... args) throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(AGENT),
                "no agent jar at " + AGENT.toAbsolutePath() + ": run mvn verify from the root to package it first");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-javaagent:" + AGENT, "-cp",
                String.join(File.pathSeparator, cp), main));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> env = pb.environment();
        env.put("ACC_DEVICE_TYPE", "multicore");
        env.put("ACC_NUM_CORES", "3");
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> out = read(p, false);
        CompletableFuture<String> err = read(p, true);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(main + " did not finish in 300 s");
        }
        String stdout = out.get(10, TimeUnit.SECONDS);
        String stderr = err.get(10, TimeUnit.SECONDS);
        String both = "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        assertEquals(0, p.exitValue(), () -> main + " exit code" + both);
        return new String[] {stdout, stderr, both};
    }

    private static CompletableFuture<String> read(Process p, boolean stderr) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String((stderr ? p.getErrorStream() : p.getInputStream()).readAllBytes(),
                        StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }
}
