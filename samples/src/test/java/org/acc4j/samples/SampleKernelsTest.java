package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.DataClause;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The samples' kernels, compiled from their class files as the agent would: PTX against golden files in
 * {@code src/test/resources/golden/} ({@code -Dacc4j.updateGolden=true} rewrites them), and through
 * {@code ptxas -arch=sm_90} when it is on the PATH.
 */
class SampleKernelsTest {
    static final Path GOLDEN = Path.of("src/test/resources/golden");
    static final String UPDATE_PROPERTY = "acc4j.updateGolden";

    static Stream<Arguments> kernels() {
        return Stream.of(
                Arguments.of(VectorAdd.class, "add", "([D[D[DI)V", "acc_VectorAdd_add_r0",
                        List.of("copyout(c) implicit", "copyin(a) implicit", "copyin(b) implicit")),
                Arguments.of(Saxpy.class, "saxpy", "(F[F[FI)V", "acc_Saxpy_saxpy_r0",
                        List.of("copy(y) implicit", "copyin(x) implicit")),
                Arguments.of(HeatRows.class, "step", "([[D[[DID)V", "acc_HeatRows_step_r0",
                        List.of("copyout(next) implicit", "copyin(u) implicit")));
    }

    static CompiledMethod compile(Class<?> c, String name, String descriptor) throws IOException {
        byte[] bytes;
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            assertTrue(in != null, "no class file for " + c.getName());
            bytes = in.readAllBytes();
        }
        Compiler.Result r = Compiler.compile(bytes, name, descriptor, 90);
        if (r instanceof Compiler.Host h) {
            fail(c.getSimpleName() + "." + name + " stays on the host: " + h.reason());
        }
        return ((Compiler.Offload) r).method();
    }

    @ParameterizedTest(name = "{0}.{1}")
    @MethodSource("kernels")
    void matchesGolden(Class<?> c, String name, String descriptor, String entry, List<String> data)
            throws IOException {
        CompiledMethod m = compile(c, name, descriptor);
        assertEquals(List.of(entry), m.kernels().stream().map(KernelPlan::entry).toList());
        assertEquals(data, m.data().stream().map(DataClause::toString).toList());
        for (KernelPlan k : m.kernels()) {
            checkGolden(k.entry() + ".ptx", k.ptx());
        }
    }

    @ParameterizedTest(name = "{0}.{1}")
    @MethodSource("kernels")
    void assemblesWithPtxas(Class<?> c, String name, String descriptor) throws Exception {
        Path ptxas = findPtxas();
        Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        for (KernelPlan k : compile(c, name, descriptor).kernels()) {
            assertNull(assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry() + ":\n" + k.ptx());
        }
    }

    static void checkGolden(String fileName, String actual) throws IOException {
        Path file = GOLDEN.resolve(fileName);
        if (Boolean.getBoolean(UPDATE_PROPERTY)) {
            Files.createDirectories(GOLDEN);
            Files.writeString(file, actual, StandardCharsets.UTF_8);
            return;
        }
        if (!Files.exists(file)) {
            fail("no golden file " + file.toAbsolutePath() + "; create it with: mvn test -D" + UPDATE_PROPERTY
                    + "=true, then read it and check it before committing it");
        }
        String expected = Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n");
        assertEquals(expected, actual.replace("\r\n", "\n"), () -> fileName + " differs from its golden file "
                + file.toAbsolutePath() + "; if the change is intended, rerun with -D" + UPDATE_PROPERTY
                + "=true and review the diff");
    }

    static Path findPtxas() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, "ptxas");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Runs {@code ptxas -arch=sm_90}; null on success, else its output. */
    static String assemble(Path ptxas, String name, String ptx) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("acc4j-ptxas");
        Path in = dir.resolve(name + ".ptx");
        Files.writeString(in, ptx, StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(ptxas.toString(), "-arch=sm_90", "-o", dir.resolve(name + ".cubin").toString(),
                in.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "ptxas timed out";
        }
        return p.exitValue() == 0 ? null : out;
    }
}
