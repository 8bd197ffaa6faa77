package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.acc4j.compiler.fixtures.MarchingKernels;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.IrPrinter;
import org.acc4j.compiler.ir.Verifier;
import org.acc4j.compiler.pass.MarchSteps;
import org.acc4j.compiler.pass.Marching;
import org.junit.jupiter.api.Test;

/**
 * Two-dimensional marched chunks written out several steps at a time ({@link MarchSteps}): the kernel through ptxas
 * and the IR verifier, and its results on the interpreter against plain Java bit for bit on every element, for chunks
 * cut at every step count (sizes that are not multiples of the chunk, the block or the steps per pass), single rows
 * and columns and empty ranges, and calls whose bounds proofs fail.
 */
class MarchStepsTest {
    private static final int[] BY = {1, 2, 3, 4, 5, 8, Marching.CHUNK - 1, Marching.CHUNK, 40};

    @Test
    void theSettingIsReadFromTheMarchingProperty() {
        String before = System.getProperty(Marching.Shape.PROPERTY);
        try {
            System.setProperty(Marching.Shape.PROPERTY, "chunk2d=8,unroll2d=4");
            assertEquals(4, MarchSteps.configured(0));
            System.setProperty(Marching.Shape.PROPERTY, "unroll2d=off");
            assertEquals(0, MarchSteps.configured(7));
            System.setProperty(Marching.Shape.PROPERTY, "unroll2d=x");
            assertEquals(7, MarchSteps.configured(7));
            System.setProperty(Marching.Shape.PROPERTY, "unroll2d=-1");
            assertEquals(7, MarchSteps.configured(7));
            System.setProperty(Marching.Shape.PROPERTY, "chunk2d=8");
            assertEquals(7, MarchSteps.configured(7));
            // the marching shape ignores the key
            assertEquals(Marching.Shape.parse("chunk2d=8"), Marching.Shape.parse("chunk2d=8,unroll2d=4"));
        } finally {
            if (before == null) {
                System.clearProperty(Marching.Shape.PROPERTY);
            } else {
                System.setProperty(Marching.Shape.PROPERTY, before);
            }
        }
    }

    @Test
    void aBlurWindowWrittenOutStepByStepMatchesJava() throws Exception {
        Random rnd = new Random(41);
        for (int by : BY) {
            CompiledMethod m = MarchingTest.withSetting("unroll2d=" + by, "window");
            KernelPlan.Unchecked u = checked(m, by);
            MarchingTest.assertNoSpills(u);
            // every step count of a last chunk, narrow and empty ranges
            int[][] sizes = {{5, 5}, {6, 130}, {Marching.CHUNK + 5, 7}, {Marching.CHUNK + 4, 129}, {41, 37}, {1, 40},
                {40, 1}, {4, 4}, {0, 0}, {2 * Marching.CHUNK + 7, 5}, {3 * Marching.CHUNK + 3, 33},
                {2 * Marching.CHUNK + 4 + by % Marching.CHUNK, 9}};
            for (int[] s : sizes) {
                int n = s[0] * s[1];
                try {
                    MarchingTest.sameAsJava(m, "window", NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n),
                            NestInputs.doubles(rnd, 25), s[0], s[1]);
                } catch (KernelInterpreter.HostInstead e) {
                    assertTrue(s[0] < 5 || s[1] < 5, e::getMessage);
                }
            }
            if (by != 4) {
                continue;
            }
            // a too short, w too short: the proof fails, the checked kernel raises Java's exception (once: a JVM
            // that has thrown one many times may throw it without its message)
            for (Object[] bad : new Object[][] {
                {NestInputs.doubles(rnd, 9 * 9 - 1), NestInputs.doubles(rnd, 81), NestInputs.doubles(rnd, 25), 9, 9},
                {NestInputs.doubles(rnd, 81), NestInputs.doubles(rnd, 81), NestInputs.doubles(rnd, 24), 9, 9}}) {
                assertFalse(BoundsTest.proven(m, bad));
                BoundsTest.assertSameOutcome(m, MarchingKernels.class, "window", bad);
            }
        }
    }

    @Test
    void otherTwoDimensionalStencilsWrittenOutMatchJava() throws Exception {
        Random rnd = new Random(42);
        for (int by : new int[] {2, 4, 5, Marching.CHUNK - 1}) {
            CompiledMethod f = MarchingTest.withSetting("unroll2d=" + by, "fivePoint");
            checked(f, by);
            CompiledMethod g = MarchingTest.withSetting("gaps=on,unroll2d=" + by, "gapped");
            checked(g, by);
            CompiledMethod w = MarchingTest.withSetting("unroll2d=" + by + ",chunk2d=7", "windowFloat");
            checked(w, by);
            for (int[] s : new int[][] {{3, 3}, {4, 9}, {19, 21}, {20, 7}, {40, 41}, {70, 133}, {2, 50}, {0, 3}}) {
                int n = s[0] * s[1];
                try {
                    MarchingTest.sameAsJava(f, "fivePoint", NestInputs.floats(rnd, n), NestInputs.floats(rnd, n),
                            s[0], s[1]);
                    MarchingTest.sameAsJava(g, "gapped", NestInputs.doubles(rnd, n), new double[n], s[0], s[1]);
                    MarchingTest.sameAsJava(w, "windowFloat", NestInputs.floats(rnd, n), NestInputs.floats(rnd, n),
                            NestInputs.floats(rnd, 2), s[0], s[1]);
                } catch (KernelInterpreter.HostInstead e) {
                    assertTrue(s[0] < 5 || s[1] < 5, e::getMessage);
                }
            }
        }
    }

    @Test
    void threeDimensionalChunksKeepTheirLoop() throws Exception {
        CompiledMethod m = MarchingTest.withSetting("unroll2d=4", "sevenPoint");
        KernelPlan.Unchecked u = MarchingTest.marched(m);
        assertNotNull(u);
        assertFalse(String.join("\n", m.report()).contains("written out"), () -> String.join("\n", m.report()));
    }

    /** The kernel is marched and written out {@code by} steps a pass, verifies, assembles and has no fused ops. */
    private static KernelPlan.Unchecked checked(CompiledMethod m, int by) throws Exception {
        KernelPlan.Unchecked u = MarchingTest.marched(m);
        String report = String.join("\n", m.report());
        assertNotNull(u, report);
        assertTrue(report.contains("after its first step a chunk runs " + by + " step"), report);
        String ir = IrPrinter.print(List.of(u.marched().loop()));
        assertTrue(ir.contains("_end = "), ir);
        assertEquals(List.of(), Verifier.problems("marching", m.body(), u.marched()));
        assertFalse(u.ptx().contains("fma"), u.ptx());
        MarchingTest.assembles(u);
        return u;
    }
}
