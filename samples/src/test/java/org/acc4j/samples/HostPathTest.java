package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs each sample under {@code -javaagent:acc.jar} with {@code ACC_DEVICE_TYPE=host}, so that the result does
 * not depend on the machine having a GPU: the agent must load, say so on stderr, and the sample must match plain
 * Java. Needs the agent jar, which {@code mvn verify} from the root packages before the samples' tests run.
 */
class HostPathTest {
    static final Path AGENT = Path.of("../acc-agent/target/acc.jar");

    @ParameterizedTest
    @ValueSource(strings = {"VectorAdd", "Saxpy", "Pipeline"})
    void runsOnTheHostUnderTheAgent(String sample) throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(AGENT),
                "no agent jar at " + AGENT.toAbsolutePath() + ": run mvn verify from the root to package it first");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = String.join(File.pathSeparator, "../acc-annotations/target/classes", "target/classes");
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-javaagent:" + AGENT, "-cp", cp,
                "org.acc4j.samples." + sample, "100000", "3"));
        pb.environment().put("ACC_DEVICE_TYPE", "host");
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> out = read(p, false);
        CompletableFuture<String> err = read(p, true);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(sample + " did not finish in 120 s");
        }
        String stdout = out.get(10, TimeUnit.SECONDS);
        String stderr = err.get(10, TimeUnit.SECONDS);
        String both = "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        assertEquals(0, p.exitValue(), () -> sample + " exit code" + both);
        assertTrue(stdout.contains("all 100000 elements match plain Java"), () -> sample + both);
        assertTrue(stderr.contains("acc4j:"), () -> "the agent said nothing on stderr" + both);
        assertTrue(stdout.contains("running on: host"), () -> sample + both);
        assertFalse(stdout.contains("start with -javaagent"), () -> "the sample was started with the agent" + both);
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
