package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The samples' transpose and DGEMM kernels with no hints get the tiled kernels (the benchmarks' default
 * variants run them), which assemble with ptxas, and the interpreter's run of the tiled kernels matches plain Java
 * bit for bit on every element.
 */
class TilingSamplesTest {
    static Stream<TilingCases.Case> cases() {
        return Stream.concat(TilingCases.transposes(new int[][] {{1, 1}, {1, 70}, {70, 1}, {33, 65}, {100, 37}}).stream(),
                TilingCases.matmuls(new int[][] {{1, 1, 1}, {1, 70, 5}, {70, 1, 3}, {65, 67, 33}, {40, 30, 0}}).stream());
    }

    @Test
    void theDefaultVariantsAreTiledAndAssemble() throws Exception {
        for (String[] k : List.of(new String[] {"Transpose", "transposeNaive", "([D[DII)V", "tiled for shared memory: in"},
                new String[] {"Transpose", "transpose2dNaive", "([[D[[DII)V", "tiled for shared memory: in"},
                new String[] {"Dgemm", "multiply", "([D[D[DIII)V", "tiled for shared memory and registers"},
                new String[] {"Dgemm", "multiply2d", "([[D[[D[[DIII)V", "tiled for shared memory and registers"})) {
            Class<?> c = k[0].equals("Transpose") ? Transpose.class : Dgemm.class;
            CompiledMethod m = SampleKernelsTest.compile(c, k[1], k[2]);
            String report = String.join("\n", m.report());
            assertTrue(report.contains(k[3]), report);
            assertNotNull(m.kernels().get(0).unchecked().tiled(), report);
            for (CompiledMethod mt : TilingCases.everyTile(m)) {
                KernelPlan.Unchecked u = mt.kernels().get(0).unchecked();
                assemble(u.entry(), u.ptx());
            }
        }
        // copies stay streaming kernels
        assertNull(SampleKernelsTest.compile(Transpose.class, "copyNaive", "([D[DII)V").kernels().get(0).unchecked().tiled());
    }

    /**
     * Assembles {@code ptx} with {@code ptxas -arch=sm_90 -v} when ptxas is on the PATH; a kernel that spills
     * registers to local memory fails too (the tiled kernels are sized to keep their tiles in registers).
     */
    static void assemble(String entry, String ptx) throws Exception {
        Path ptxas = ptxas();
        if (ptxas == null) {
            return;
        }
        Path dir = Files.createTempDirectory("acc4j-tiling");
        Path in = dir.resolve(entry + ".ptx");
        Files.writeString(in, ptx);
        Process p = new ProcessBuilder(ptxas.toString(), "-arch=sm_90", "-v", "-o", dir.resolve("k.cubin").toString(),
                in.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor() == 0, out);
        assertTrue(out.lines().noneMatch(l -> l.matches(".*\\b[1-9][0-9]* bytes spill (stores|loads).*")), out);
    }

    private static Path ptxas() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, "ptxas");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theInterpretedTiledKernelMatchesJava(TilingCases.Case c) throws Exception {
        CompiledMethod compiled = SampleKernelsTest.compile(c.owner(), c.name(), c.descriptor());
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        for (CompiledMethod m : TilingCases.everyTile(compiled)) {
            for (int maxBlocks : new int[] {2, 1000}) {
                Object[] args = c.copy();
                try {
                    KernelInterpreter.run(m, args, maxBlocks);
                } catch (KernelInterpreter.HostInstead e) {
                    // an empty or single range: the check that the writes do not overlap may keep the call on the host
                    continue;
                }
                assertSame(plain, args, c.toString());
            }
        }
    }

    static void assertSame(Object[] expected, Object[] actual, String what) {
        for (int k = 0; k < expected.length; k++) {
            if (expected[k] instanceof double[] e) {
                assertArrayEquals(e, (double[]) actual[k], what + " argument " + k);
            } else if (expected[k] instanceof double[][] e) {
                for (int r = 0; r < e.length; r++) {
                    assertArrayEquals(e[r], ((double[][]) actual[k])[r], what + " argument " + k + " row " + r);
                }
            }
        }
    }
}
