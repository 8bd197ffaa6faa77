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
import org.acc4j.compiler.pass.Marching;
import org.acc4j.compiler.pass.PointBlock;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The steps of a 3D marched chunk with the first step peeled and the later ones unrolled ({@code unroll} of
 * {@link Marching.Shape}): the rewritten loops, ptxas, and the interpreter's results against plain Java bit for bit on
 * every element for the 7-point, Laplacian and 13-point nests, at sizes whose chunks are not multiples of the
 * unrolling or the block, one-wide and empty ranges, and a call whose bounds proofs fail.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MarchingStepsTest {
    /**
     * Sizes (nx, ny, nz): chunk tails of every length modulo 2, 4 and 8, one-wide and empty interiors, short stride-1
     * rows (nx for the 7-point nest, nz for the others: 3, 64, 65).
     */
    static final int[][] SIZES = {{3, 3, 3}, {4, 3, 5}, {5, 4, 40}, {33, 9, 17}, {7, 6, 19}, {3, 3, 70},
        {10, 10, 2}, {1, 5, 5}, {6, 7, Marching.CHUNK + 2}, {6, 5, Marching.CHUNK + 3}, {9, 4, 2 * Marching.CHUNK + 7},
        {35, 3, 23}, {6, 7, 64}, {5, 6, 65}, {64, 5, 6}, {65, 4, 7}, {9, 11, 3}};

    static Object[] args(String name, Random rnd, int[] s) {
        int n = s[0] * s[1] * s[2];
        return switch (name) {
            case "sevenPoint" -> new Object[] {NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n), s[0], s[1], s[2],
                0.4, 0.1};
            case "laplacian" -> new Object[] {NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n), s[0], s[1], s[2],
                0.3, 0.2, 0.1};
            default -> new Object[] {NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n), new double[n], s[0], s[1],
                s[2], 1.9, 0.3, -0.05};
        };
    }

    @Test
    void theUnrollingIsASettingOfPowersOfTwo() {
        assertEquals(Marching.UNROLL, Marching.Shape.DEFAULT.unroll());
        assertEquals(4, Marching.Shape.parse("unroll=4").unroll());
        assertEquals(4, Marching.Shape.parse("unroll=4,chunk=32").unroll());
        assertEquals(32, Marching.Shape.parse("unroll=4,chunk=32").chunk());
        assertEquals(0, Marching.Shape.parse("unroll=off").unroll());
        assertEquals(Marching.Shape.DEFAULT, Marching.Shape.parse("unroll=3"));
        assertEquals(Marching.Shape.DEFAULT, Marching.Shape.parse("unroll=16"));
        assertTrue(Marching.Shape.parse("once=on,unroll=2").once());
        assertEquals(2, Marching.Shape.parse("once=on,unroll=2").unroll());
        assertFalse(Marching.Shape.parse("once=off").once());
        assertEquals(new PointBlock(64, 2, 2), Marching.Shape.parse("points=64x2x2").points());
        assertEquals(Marching.Shape.DEFAULT, Marching.Shape.parse("points=48x2x2"));
        assertEquals(Marching.Shape.DEFAULT, Marching.Shape.parse("points=64x4x8"));
        assertTrue(Marching.Shape.parse("align=on").align());
        assertEquals(Marching.ALIGN, Marching.Shape.DEFAULT.align());
    }

    @Test
    void unrolledStepsGiveJavasResultOnEveryThreeDimensionalNest() throws Exception {
        Random rnd = new Random(41);
        for (String setting : new String[] {"points=off,unroll=1", "points=off,unroll=2", "points=off,unroll=4",
            "points=off,unroll=8", "points=off,unroll=4,chunk=5", "points=off,unroll=2,chunk=1",
            "points=off,unroll=4,prefetch=on", "points=off,unroll=8,chunk=32,block=64x4", "points=off,once=on",
            "points=off,once=on,unroll=1", "points=off,once=on,unroll=4", "points=off,once=on,unroll=2,chunk=3,block=8x2",
            "points=64x2x2", "points=32x1x1", "points=128x2x4", "points=off", "align=on", "points=64x4x1,align=on"}) {
            for (String name : new String[] {"sevenPoint", "laplacian", "thirteenPoint"}) {
                CompiledMethod m = MarchingTest.withSetting(setting, name);
                KernelPlan.Unchecked u = MarchingTest.marched(m);
                assertNotNull(u, () -> setting + " " + name + "\n" + String.join("\n", m.report()));
                assertEquals(List.of(), Verifier.problems("marching", m.body(), u.marched()), setting + " " + name);
                String ir = IrPrinter.print(List.of(u.marched().loop()));
                int by = Marching.Shape.parse(setting).unroll();
                if (Marching.Shape.parse(setting).points() != null) {
                    // the nest unchanged, on a mapping of its own
                    assertFalse(ir.contains("_chunk"), ir);
                    assertTrue(String.join("\n", m.report()).contains("one point per thread in blocks of "
                            + Marching.Shape.parse(setting).points()), String.join("\n", m.report()));
                } else {
                    // the first step peeled: no test for it at each step
                    assertEquals(by == 0, ir.matches("(?s).*== \\w+_chunk\\).*"), ir);
                }
                if (by > 1) {
                    assertTrue(ir.contains("_by" + by + " += " + by), ir);
                }
                MarchingTest.assembles(u);
                MarchingTest.assertNoSpills(u);
                for (int[] s : SIZES) {
                    if (name.equals("thirteenPoint") && (s[0] < 5 || s[1] < 5 || s[2] < 5)) {
                        continue;
                    }
                    try {
                        MarchingTest.sameAsJava(m, name, args(name, rnd, s));
                    } catch (KernelInterpreter.HostInstead e) {
                        // an empty range may make the check that the writes do not overlap send the call to the host
                        assertTrue(s[0] < 3 || s[1] < 3 || s[2] < 3, e::getMessage);
                    }
                }
            }
        }
    }

    @Test
    void theOnePointKernelsKeepThirtyTwoRegistersAThread() throws Exception {
        // the strided path for grids that do not cover the nest walks its points in one loop: nested strided loops
        // took 40 registers for the Laplacian and the 13-point nest, three quarters of the threads an SM can hold
        java.nio.file.Path ptxas = Ptxas.find();
        for (String name : new String[] {"sevenPoint", "laplacian", "thirteenPoint"}) {
            KernelPlan.Unchecked u = MarchingTest.marched(MarchingTest.withSetting("", name));
            assertNotNull(u, name);
            assertTrue(u.ptx().contains("$L_points_strided"), u.ptx());
            // the x threads start at the row element of the lower bound rounded down to a multiple of 32
            assertTrue(u.ptx().contains("and.b32") && u.ptx().contains(", 31;"), u.ptx());
            if (ptxas != null) {
                int regs = Ptxas.registers(ptxas, u.entry(), u.ptx());
                assertTrue(regs > 0 && regs <= 32, name + ": " + regs + " registers");
            }
        }
    }

    @Test
    @Order(1)
    void aFailedProofRunsTheCheckedKernelWithJavasException() throws Exception {
        // first, so that Java's exception is thrown by code the JIT has not yet compiled (which may drop its message)
        CompiledMethod m = MarchingTest.withSetting("points=off,unroll=4", "laplacian");
        assertNotNull(MarchingTest.marched(m));
        Random rnd = new Random(43);
        Object[] bad = {NestInputs.doubles(rnd, 6 * 6 * 5), new double[6 * 6 * 6], 6, 6, 6, 0.3, 0.2, 0.1};
        assertFalse(BoundsTest.proven(m, bad));
        BoundsTest.assertSameOutcome(m, MarchingKernels.class, "laplacian", bad);
    }
}
