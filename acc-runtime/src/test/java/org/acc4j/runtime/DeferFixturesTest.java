package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.util.Random;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;

/**
 * The deferred-launch tests' kernels without a device: compiled and run by the kernel interpreter (with its race
 * check), chains of calls as the GPU test makes them, every element against plain Java on random inputs from a fixed
 * seed; and the slow kernel's quick reference against its plain loop.
 */
class DeferFixturesTest {
    private static CompiledMethod compile(String name) throws IOException {
        byte[] bytes;
        try (InputStream in = DeferFixtures.class.getResourceAsStream("DeferFixtures.class")) {
            bytes = in.readAllBytes();
        }
        Compiler.Result r = Compiler.compile(bytes, name, DeferFixtures.descriptor(name), 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        return ((Compiler.Offload) r).method();
    }

    private static int[] ints(Random r, int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt();
        }
        return a;
    }

    /** {@code ptxas} on the PATH, or null. */
    private static java.nio.file.Path ptxas() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            java.nio.file.Path p = java.nio.file.Path.of(dir, "ptxas");
            if (java.nio.file.Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** ptxas's complaint about {@code ptx} for sm_90, or null when it assembles. */
    private static String assemble(java.nio.file.Path ptxas, String ptx) throws IOException, InterruptedException {
        java.nio.file.Path in = java.nio.file.Files.createTempFile("defer", ".ptx");
        java.nio.file.Path out = java.nio.file.Files.createTempFile("defer", ".cubin");
        try {
            java.nio.file.Files.writeString(in, ptx);
            Process p = new ProcessBuilder(ptxas.toString(), "-arch=sm_90", in.toString(), "-o", out.toString())
                    .redirectErrorStream(true).start();
            String said = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return p.waitFor() == 0 ? null : said;
        } finally {
            java.nio.file.Files.deleteIfExists(in);
            java.nio.file.Files.deleteIfExists(out);
        }
    }

    @Test
    void everyKernelAssembles() throws Exception {
        java.nio.file.Path ptxas = ptxas();
        org.junit.jupiter.api.Assumptions.assumeTrue(ptxas != null, "no ptxas on the PATH");
        for (String name : new String[] {"churn", "step", "total", "divide", "smooth"}) {
            for (org.acc4j.compiler.KernelPlan k : compile(name).kernels()) {
                org.junit.jupiter.api.Assertions.assertNull(assemble(ptxas, k.ptx()), k.entry());
                if (k.unchecked() != null) {
                    org.junit.jupiter.api.Assertions.assertNull(assemble(ptxas, k.unchecked().ptx()),
                            k.unchecked().entry());
                }
            }
        }
    }

    @Test
    void theGpuTestsKernelsAreDeferredOrNotAsItExpects() throws IOException {
        for (String name : new String[] {"churn", "step", "smooth"}) {
            org.acc4j.compiler.plan.LaunchPlan k = org.acc4j.compiler.plan.MethodLaunch.of(compile(name)).kernel(0);
            org.junit.jupiter.api.Assertions.assertTrue(k.hasUnchecked() && !k.raises(true) && k.reductions() == 0,
                    name + ": its proven variant can be deferred");
        }
        org.acc4j.compiler.plan.LaunchPlan divide = org.acc4j.compiler.plan.MethodLaunch.of(compile("divide")).kernel(0);
        org.junit.jupiter.api.Assertions.assertTrue(divide.raises(false) && (!divide.hasUnchecked()
                || divide.raises(true)), "a division keeps every variant waited for");
        org.junit.jupiter.api.Assertions.assertTrue(
                org.acc4j.compiler.plan.MethodLaunch.of(compile("total")).kernel(0).reductions() > 0);
    }

    @Test
    void theQuickReferenceIsThePlainLoop() {
        Random r = new Random(91);
        int n = 1000;
        int[] in = ints(r, n);
        for (int rounds : new int[] {0, 1, 2, 3, 7, 64, 1000, 4097}) {
            int[] out = new int[n];
            DeferFixtures.churn(in, out, rounds, n);
            assertArrayEquals(out, DeferFixtures.churned(in, rounds, n), rounds + " rounds");
        }
    }

    @Test
    void aChainOfInterpretedCallsIsPlainJavas() throws IOException {
        Random r = new Random(92);
        int n = 3001;
        CompiledMethod step = compile("step");
        CompiledMethod churn = compile("churn");
        CompiledMethod total = compile("total");
        int[] x = ints(r, n);
        int[] y = ints(r, n);
        int[] plainX = x.clone();
        for (int t = 0; t < 6; t++) {
            KernelInterpreter.run(step, new Object[] {x, y, 3, n}, 7);
            DeferFixtures.step(plainX, y, 3, n);
        }
        assertArrayEquals(plainX, x);
        int[] out = new int[n];
        KernelInterpreter.run(churn, new Object[] {x, out, 50, n}, 7);
        assertArrayEquals(DeferFixtures.churned(x, 50, n), out);
        assertEquals(DeferFixtures.total(out, n), KernelInterpreter.run(total, new Object[] {out, n}, 7));
    }
}
