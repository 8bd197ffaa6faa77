package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.acc4j.compiler.fixtures.MarchStepsKernels;
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
            System.setProperty(Marching.Shape.PROPERTY, "unroll2d=chunk");
            assertEquals(MarchSteps.WHOLE, MarchSteps.configured(0));
            assertEquals(7, MarchSteps.steps(MarchSteps.WHOLE, 8));
            assertEquals(3, MarchSteps.steps(3, 8));
            System.setProperty(Marching.Shape.PROPERTY, "gaps2d=on,gaps=off,hoist2d=on");
            assertTrue(MarchSteps.gaps2d(false));
            assertTrue(MarchSteps.hoisting(false));
            System.setProperty(Marching.Shape.PROPERTY, "gaps2d=off,gaps=on,hoist2d=off");
            assertFalse(MarchSteps.gaps2d(true));
            assertFalse(MarchSteps.hoisting(true));
            System.setProperty(Marching.Shape.PROPERTY, "gaps=on");
            assertTrue(MarchSteps.gaps2d(true));
            System.setProperty(Marching.Shape.PROPERTY, "chunk=8");
            assertEquals(MarchSteps.GAPS_2D, MarchSteps.gaps2d(false));
            assertEquals(MarchSteps.HOIST_2D, MarchSteps.hoisting(MarchSteps.HOIST_2D));
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
            CompiledMethod m = withSetting("unroll2d=" + by, "window");
            KernelPlan.Unchecked u = checked(m, by);
            MarchingTest.assertNoSpills(u);
            // every step count of a last chunk, narrow and empty ranges
            int[][] sizes = {{5, 5}, {6, 130}, {Marching.CHUNK + 5, 7}, {Marching.CHUNK + 4, 129}, {41, 37}, {1, 40},
                {40, 1}, {4, 4}, {0, 0}, {2 * Marching.CHUNK + 7, 5}, {3 * Marching.CHUNK + 3, 33},
                {2 * Marching.CHUNK + 4 + by % Marching.CHUNK, 9}};
            for (int[] s : sizes) {
                int n = s[0] * s[1];
                try {
                    sameAsJava(m, "window", NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n),
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
                BoundsTest.assertSameOutcome(m, MarchStepsKernels.class, "window", bad);
            }
        }
    }

    @Test
    void otherTwoDimensionalStencilsWrittenOutMatchJava() throws Exception {
        Random rnd = new Random(42);
        for (String setting : new String[] {"unroll2d=2", "unroll2d=4,chunk2d=7", "unroll2d=5,hoist2d=on",
            "unroll2d=" + (Marching.CHUNK - 1), "hoist2d=on", "hoist2d=on,unroll2d=3,chunk2d=9"}) {
            // the sweep's column has a gap (rows i - 1 and i + 1): marched with gaps=on only
            CompiledMethod j = withSetting(setting + ",gaps=on", "jacobi");
            CompiledMethod t = withSetting(setting, "twoInputs");
            for (CompiledMethod m : List.of(j, t)) {
                checked(m, setting);
            }
            for (int[] s : new int[][] {{3, 3}, {4, 9}, {19, 21}, {20, 7}, {40, 41}, {70, 133}, {2, 50}, {0, 3},
                {50, 2}, {Marching.CHUNK + 2, 5}, {2 * Marching.CHUNK + 3, 6}}) {
                int n = s[0] * s[1];
                try {
                    sameAsJava(j, "jacobi", NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n), s[0], s[1]);
                } catch (KernelInterpreter.HostInstead e) {
                    assertTrue(s[0] < 3 || s[1] < 3, e::getMessage);
                }
                try {
                    sameAsJava(t, "twoInputs", NestInputs.floats(rnd, n), NestInputs.floats(rnd, n),
                            NestInputs.floats(rnd, n), NestInputs.floats(rnd, 9), NestInputs.floats(rnd, 2), s[0], s[1]);
                } catch (KernelInterpreter.HostInstead e) {
                    assertTrue(s[0] < 3 || s[1] < 3, e::getMessage);
                }
            }
        }
    }

    @Test
    void weightsHoistedToTheKernelsStartMatchJava() throws Exception {
        Random rnd = new Random(43);
        for (String setting : new String[] {"hoist2d=on", "hoist2d=on,unroll2d=4", "hoist2d=on,unroll2d=15"}) {
            CompiledMethod m = withSetting(setting, "window");
            KernelPlan.Unchecked u = checked(m, setting);
            String report = String.join("\n", m.report());
            assertTrue(report.contains("25 loads that no step changes made once per thread at the kernel's start"),
                    report);
            // the loads stand in the prologue, under the test that the nest has an iteration
            String prologue = IrPrinter.print(u.marched().prologue());
            assertTrue(prologue.contains("w_fixed24 = w[24]"), prologue);
            MarchingTest.assertNoSpills(u);
            for (int[] s : new int[][] {{5, 5}, {6, 130}, {Marching.CHUNK + 5, 7}, {41, 37}, {1, 40}, {40, 1}, {4, 4},
                {0, 0}, {2 * Marching.CHUNK + 7, 5}}) {
                int n = s[0] * s[1];
                try {
                    sameAsJava(m, "window", NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n),
                            NestInputs.doubles(rnd, 25), s[0], s[1]);
                } catch (KernelInterpreter.HostInstead e) {
                    assertTrue(s[0] < 5 || s[1] < 5, e::getMessage);
                }
            }
            // an empty nest with no weights at all: nothing is loaded, nothing written
            sameAsJava(m, "window", NestInputs.doubles(rnd, 16), NestInputs.doubles(rnd, 16), new double[0], 4, 4);
        }
    }

    @Test
    void theDefaultsMarchTheBlurAndTheSweepWithTheirStepsWrittenOut() throws Exception {
        // no setting: the blur's tallest column has 5 rows (chunks of 8), the sweep's 3 with its gap filled (4)
        CompiledMethod w = withSetting("", "window");
        KernelPlan.Unchecked uw = checked(w, 7);
        String rw = String.join("\n", w.report());
        assertTrue(rw.contains("chunks of 8 steps of i per thread"), rw);
        assertTrue(rw.contains("25 loads that no step changes made once per thread at the kernel's start"), rw);
        MarchingTest.assertNoSpills(uw);
        CompiledMethod j = withSetting("", "jacobi");
        KernelPlan.Unchecked uj = checked(j, 3);
        String rj = String.join("\n", j.report());
        assertTrue(rj.contains("a is read at i-1, i+1") && rj.contains("chunks of 4 steps of i per thread"), rj);
        // the marched sweep's PTX, reviewed as a diff when it changes
        Golden.check(PtxGoldenTest.GOLDEN, uj.entry() + ".ptx", uj.ptx());
        Random rnd = new Random(44);
        for (int[] s : new int[][] {{3, 3}, {5, 6}, {6, 130}, {7, 7}, {8, 9}, {9, 33}, {41, 37}, {1, 40}, {40, 1},
            {0, 0}}) {
            int n = s[0] * s[1];
            try {
                sameAsJava(w, "window", NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n),
                        NestInputs.doubles(rnd, 25), s[0], s[1]);
            } catch (KernelInterpreter.HostInstead e) {
                assertTrue(s[0] < 5 || s[1] < 5, e::getMessage);
            }
            try {
                sameAsJava(j, "jacobi", NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n), s[0], s[1]);
            } catch (KernelInterpreter.HostInstead e) {
                assertTrue(s[0] < 3 || s[1] < 3, e::getMessage);
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
        KernelPlan.Unchecked u = checked(m, "unroll2d=" + by);
        String report = String.join("\n", m.report());
        assertTrue(report.contains("after its first step a chunk runs " + by + " step"), report);
        String ir = IrPrinter.print(List.of(u.marched().loop()));
        assertTrue(ir.contains("_end = "), ir);
        return u;
    }

    /** The kernel is marched, verifies, assembles and has no fused ops. */
    private static KernelPlan.Unchecked checked(CompiledMethod m, String setting) throws Exception {
        KernelPlan.Unchecked u = MarchingTest.marched(m);
        String report = String.join("\n", m.report());
        assertNotNull(u, setting + ": " + report);
        assertEquals(List.of(), Verifier.problems("marching", m.body(), u.marched()));
        assertFalse(u.ptx().contains("fma"), u.ptx());
        MarchingTest.assembles(u);
        return u;
    }

    /** {@code name} of {@link MarchStepsKernels} compiled under the marching setting {@code setting}. */
    static CompiledMethod withSetting(String setting, String name) {
        String before = System.getProperty(Marching.Shape.PROPERTY);
        try {
            System.setProperty(Marching.Shape.PROPERTY, setting);
            return CompilerTest.offload(MarchStepsKernels.class, name);
        } finally {
            if (before == null) {
                System.clearProperty(Marching.Shape.PROPERTY);
            } else {
                System.setProperty(Marching.Shape.PROPERTY, before);
            }
        }
    }

    /** The interpreter (at two grid sizes) and plain Java on copies of {@code args}: every element bit for bit. */
    static void sameAsJava(CompiledMethod m, String name, Object... args) throws Exception {
        Method method = Arrays.stream(MarchStepsKernels.class.getMethods()).filter(x -> x.getName().equals(name))
                .findFirst().orElseThrow();
        Object[] plain = NestInputs.copy(args);
        method.invoke(null, plain);
        for (int maxBlocks : new int[] {3, 1000}) {
            Object[] d = NestInputs.copy(args);
            KernelInterpreter.run(m, d, maxBlocks);
            for (int k = 0; k < d.length; k++) {
                BoundsTest.assertDeep(plain[k], d[k], name + " argument " + k);
            }
        }
    }
}
