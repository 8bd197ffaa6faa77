package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.acc4j.compiler.fixtures.MarchingKernels;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.Verifier;
import org.acc4j.compiler.pass.Marching;
import org.junit.jupiter.api.Test;

/**
 * Marched stencils: which nests are rewritten and the report's reason, the rewritten kernel through ptxas, and its
 * results on the interpreter (which runs the rewritten nest thread by thread, with its race check) against plain
 * Java bit for bit on every element, for sizes that are not multiples of the chunk or the block, single rows,
 * empty ranges and calls whose bounds proofs fail (the checked kernel then raises Java's exception).
 */
class MarchingTest {
    static KernelPlan.Unchecked marched(CompiledMethod m) {
        KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
        return u != null && u.marched() != null ? u : null;
    }

    static void assembles(KernelPlan.Unchecked u) throws Exception {
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, u.entry(), u.ptx()), u.ptx());
        }
    }

    private static String report(CompiledMethod m) {
        return String.join("\n", m.report());
    }

    /** Runs the interpreter and plain Java on {@code args}, comparing every element bit for bit. */
    static void sameAsJava(CompiledMethod m, String name, Object... args) throws Exception {
        Method method = Arrays.stream(MarchingKernels.class.getMethods()).filter(x -> x.getName().equals(name))
                .findFirst().orElseThrow();
        Object[] plain = NestInputs.copy(args);
        method.invoke(null, plain);
        for (int maxBlocks : new int[] {3, 1000}) {
            Object[] d = NestInputs.copy(args);
            KernelInterpreter.run(m, d, maxBlocks);
            for (int k = 0; k < d.length; k++) {
                if (plain[k] instanceof double[] e) {
                    double[] a = (double[]) d[k];
                    for (int q = 0; q < e.length; q++) {
                        assertEquals(Double.doubleToRawLongBits(e[q]), Double.doubleToRawLongBits(a[q]),
                                name + " argument " + k + " element " + q);
                    }
                } else if (plain[k] instanceof float[] e) {
                    float[] a = (float[]) d[k];
                    for (int q = 0; q < e.length; q++) {
                        assertEquals(Float.floatToRawIntBits(e[q]), Float.floatToRawIntBits(a[q]),
                                name + " argument " + k + " element " + q);
                    }
                } else {
                    assertEquals(plain[k], d[k]);
                }
            }
        }
    }

    @Test
    void aSevenPointStencilMarchesAlongZAndMatchesJava() throws Exception {
        CompiledMethod m = CompilerTest.offload(MarchingKernels.class, "sevenPoint");
        KernelPlan.Unchecked u = marched(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("marched along k with its values in registers: a is read at k-1, k, k+1"),
                report(m));
        assertFalse(u.ptx().contains("fma"), u.ptx());
        assertEquals(java.util.List.of(), Verifier.problems("marching", m.body(), u.marched()));
        assembles(u);
        Random rnd = new Random(31);
        int[][] sizes = {{3, 3, 3}, {5, 4, 40}, {33, 9, 17}, {3, 3, 70}, {10, 10, 2}, {7, 6, 19}, {1, 5, 5},
            {4, 4, Marching.CHUNK + 2}, {4, 4, Marching.CHUNK + 3}};
        for (int[] s : sizes) {
            int n = s[0] * s[1] * s[2];
            Object[] args = {NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n), s[0], s[1], s[2], 0.4, 0.1};
            try {
                sameAsJava(m, "sevenPoint", args);
            } catch (KernelInterpreter.HostInstead e) {
                // an empty range may make the check that the writes do not overlap send the call to the host
                assertTrue(s[0] < 3 || s[1] < 3 || s[2] < 3, e::getMessage);
            }
        }
        // a too short: the proof fails and the checked kernel raises Java's exception
        Object[] bad = {NestInputs.doubles(rnd, 6 * 6 * 5), new double[6 * 6 * 6], 6, 6, 6, 0.4, 0.1};
        assertFalse(BoundsTest.proven(m, bad));
        BoundsTest.assertSameOutcome(m, MarchingKernels.class, "sevenPoint", bad);
    }

    @Test
    void aThirteenPointStencilMarchesAlongTheOuterLoop() throws Exception {
        CompiledMethod m = CompilerTest.offload(MarchingKernels.class, "thirteenPoint");
        KernelPlan.Unchecked u = marched(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("w1 is read at i-2, i-1, i, i+1, i+2"), report(m));
        assembles(u);
        Random rnd = new Random(32);
        for (int[] s : new int[][] {{5, 5, 5}, {40, 6, 7}, {21, 9, 35}, {6, 5, 70}}) {
            int n = s[0] * s[1] * s[2];
            sameAsJava(m, "thirteenPoint", NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n), new double[n], s[0],
                    s[1], s[2], 1.9, 0.3, -0.05);
        }
    }

    @Test
    void aFivePointStencilInFloatsMarchesAlongRows() throws Exception {
        CompiledMethod m = CompilerTest.offload(MarchingKernels.class, "fivePoint");
        KernelPlan.Unchecked u = marched(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("a is read at i-1, i, i+1"), report(m));
        assembles(u);
        Random rnd = new Random(33);
        for (int[] s : new int[][] {{3, 3}, {3, 300}, {300, 3}, {37, 129}, {Marching.CHUNK + 2, 5}, {50, 1}, {1, 50}}) {
            try {
                sameAsJava(m, "fivePoint", NestInputs.floats(rnd, s[0] * s[1]), NestInputs.floats(rnd, s[0] * s[1]),
                        s[0], s[1]);
            } catch (KernelInterpreter.HostInstead e) {
                assertTrue(s[0] < 3 || s[1] < 3, e::getMessage);
            }
        }
    }

    @Test
    void aColumnWithAGapLoadsTheMissingRowsAgain() throws Exception {
        CompiledMethod m = CompilerTest.offload(MarchingKernels.class, "gapped");
        KernelPlan.Unchecked u = marched(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("a is read at i-2, i, i+1, i+2"), report(m));
        assembles(u);
        Random rnd = new Random(34);
        for (int[] s : new int[][] {{5, 5}, {40, 41}, {19, 140}, {70, 6}}) {
            sameAsJava(m, "gapped", NestInputs.doubles(rnd, s[0] * s[1]), new double[s[0] * s[1]], s[0], s[1]);
        }
    }

    @Test
    void nestsOutsideTheShapeAreNotMarched() {
        for (String name : new String[] {"inPlace", "variableOffset", "noReuse", "annotated"}) {
            Compiler.Result r = CompilerTest.compile(MarchingKernels.class, name);
            if (r instanceof Compiler.Offload o) {
                assertNull(marched(o.method()), name);
            }
        }
    }
}
