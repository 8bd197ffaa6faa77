package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.ArrayReductionKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.RowGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A reduction into a local of each outer iteration from an inner loop mapped to vector (OpenACC's gang loop around a
 * vector reduction loop; dense row sums): a vector reduction per row, run by a group of lanes per row that add their
 * shares with warp shuffles; without the vector clause one thread per row in Java's order. Checks the choice, the
 * report, ptxas on the PTX, and the kernels in the interpreter against plain Java on random inputs.
 */
class VectorRowReductionsTest {
    private static RowGroup group(CompiledMethod m) {
        for (KernelParam p : m.kernels().get(0).params()) {
            if (p instanceof KernelParam.RowLanes g) {
                return g.group();
            }
        }
        return null;
    }

    private static void assembles(CompiledMethod m) throws Exception {
        Path ptxas = Ptxas.find();
        if (ptxas == null) {
            return;
        }
        var k = m.kernels().get(0);
        assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
        if (k.unchecked() != null) {
            assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()), k.unchecked().entry());
        }
    }

    @ParameterizedTest
    @CsvSource({"rowSumsVector, 32, true, vector = 128 asked: a row's group of lanes is at most a warp",
        "rowSumsVector32, 32, true, 32 lanes per row add s",
        "triangleSumsVector8, 8, true, 8 lanes per row add s",
        "longRowSumsVector, 32, false, (an integer sum: exact in any order)"})
    void theVectorClauseGivesAVectorReductionPerRow(String method, int lanes, boolean reassociates, String note)
            throws Exception {
        CompiledMethod m = CompilerTest.offload(ArrayReductionKernels.class, method);
        RowGroup g = group(m);
        assertNotNull(g, String.join("\n", m.report()));
        assertNull(g.offsets());
        assertEquals(lanes, g.lanes());
        assertEquals(reassociates, g.reassociates());
        assertEquals(lanes, g.choose(null, 0, 100, true).lanes());
        assertTrue(m.report().stream().anyMatch(l -> l.contains("a vector reduction per row: ") && l.contains(note)),
                String.join("\n", m.report()));
        assertTrue(m.report().stream().noneMatch(l -> l.contains("sequential in each thread")),
                String.join("\n", m.report()));
        String ptx = m.kernels().get(0).ptx();
        assertTrue(ptx.contains("shfl.sync.bfly"), ptx);
        assembles(m);
    }

    @Test
    void withoutTheVectorClauseARowIsOneThreadInJavasOrder() {
        CompiledMethod m = CompilerTest.offload(ArrayReductionKernels.class, "rowSums");
        assertNull(group(m));
        assertTrue(m.report().stream().anyMatch(l -> l.contains("sequential in each thread")),
                String.join("\n", m.report()));
    }

    @Test
    void theInterpreterMatchesPlainJava() throws Exception {
        Random r = new Random(404);
        CompiledMethod dense = CompilerTest.offload(ArrayReductionKernels.class, "rowSumsVector");
        CompiledMethod tri = CompilerTest.offload(ArrayReductionKernels.class, "triangleSumsVector8");
        CompiledMethod longs = CompilerTest.offload(ArrayReductionKernels.class, "longRowSumsVector");
        for (int[] shape : new int[][] {{0, 5}, {1, 1}, {37, 7}, {64, 129}}) {
            int m = shape[0];
            int n = shape[1];
            double[] a = r.doubles((long) m * n).map(v -> v - 0.5).toArray();
            double[] expected = new double[m];
            ArrayReductionKernels.rowSumsVector(a, expected, m, n);
            double[] got = new double[m];
            KernelInterpreter.run(dense, new Object[] {a, got, m, n}, 3);
            assertArrayEquals(expected, got, "rowSumsVector " + m + "x" + n);
            float[] f = new float[m * n];
            for (int i = 0; i < f.length; i++) {
                f[i] = r.nextFloat() - 0.5f;
            }
            float[] fExpected = new float[m];
            ArrayReductionKernels.triangleSumsVector8(f, fExpected, m, n);
            float[] fGot = new float[m];
            KernelInterpreter.run(tri, new Object[] {f, fGot, m, n}, 2);
            assertArrayEquals(fExpected, fGot, "triangleSumsVector8 " + m + "x" + n);
            int[] k = r.ints((long) m * n).toArray();
            long[] lExpected = new long[m];
            ArrayReductionKernels.longRowSumsVector(k, lExpected, m, n);
            long[] lGot = new long[m];
            KernelInterpreter.run(longs, new Object[] {k, lGot, m, n}, 4);
            assertArrayEquals(lExpected, lGot, "longRowSumsVector " + m + "x" + n);
        }
    }
}
