package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
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
                } else if (plain[k] instanceof double[][] e) {
                    double[][] a = (double[][]) d[k];
                    for (int r = 0; r < e.length; r++) {
                        for (int q = 0; q < e[r].length; q++) {
                            assertEquals(Double.doubleToRawLongBits(e[r][q]), Double.doubleToRawLongBits(a[r][q]),
                                    name + " argument " + k + " row " + r + " element " + q);
                        }
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
        // marched when 3D nests are not kept at one point per thread (points=off)
        CompiledMethod m = withSetting("points=off", "sevenPoint");
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
        CompiledMethod m = withSetting("points=off", "thirteenPoint");
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

    /** Compiles {@code name} with the marching setting {@code setting}, the property restored after. */
    static CompiledMethod withSetting(String setting, String name) {
        String before = System.getProperty(Marching.Shape.PROPERTY);
        try {
            System.setProperty(Marching.Shape.PROPERTY, setting);
            return CompilerTest.offload(MarchingKernels.class, name);
        } finally {
            if (before == null) {
                System.clearProperty(Marching.Shape.PROPERTY);
            } else {
                System.setProperty(Marching.Shape.PROPERTY, before);
            }
        }
    }

    @Test
    void neighboursTwoRowsApartMarchWithTheRowBetweenInARegisterWhenGapsAreOn() throws Exception {
        assertNull(marched(withSetting("gaps2d=off", "noReuse")), "gaps2d=off: the plain kernel");
        CompiledMethod m = withSetting("gaps=on", "noReuse");
        KernelPlan.Unchecked u = marched(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("a is read at i-1, i+1"), report(m));
        String ir = org.acc4j.compiler.ir.IrPrinter.print(List.of(u.marched().loop()));
        // the row between is loaded once per chunk, only when the chunk has the step that reads it as row i - 1
        assertTrue(ir.contains("a_i_p1 = a_i_p2") && ir.contains("a_i_p0 = a_i_p1"), ir);
        assertTrue(ir.contains(") > 1)"), ir);
        assembles(u);
        Random rnd = new Random(35);
        // 17 and 18 rows: a last chunk of one and of two steps
        for (int[] s : new int[][] {{3, 3}, {4, 9}, {19, 21}, {20, 7}, {40, 41}, {70, 133}}) {
            sameAsJava(m, "noReuse", NestInputs.doubles(rnd, s[0] * s[1]), new double[s[0] * s[1]], s[0], s[1]);
        }
    }

    @Test
    void rowsOfADoubleMatrixMarchOneRowAStep() throws Exception {
        // rows of a double[][] march only with rows=on; rows i and i + 1 at column j + 1 are adjacent: marched then
        assertNull(marched(CompilerTest.offload(MarchingKernels.class, "rowsWide")), "rows are off by default");
        assertNotNull(marched(withSetting("rows=on", "rowsWide")));
        assertNull(marched(withSetting("rows=on,gaps2d=off", "jacobiRows")), "gaps2d=off: the plain kernel");
        CompiledMethod m = withSetting("gaps=on,rows=on", "jacobiRows");
        KernelPlan.Unchecked u = marched(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("a is read at i-1, i+1"), report(m));
        assembles(u);
        CompiledMethod w = withSetting("gaps=on,rows=on", "rowsWide");
        KernelPlan.Unchecked uw = marched(w);
        assertNotNull(uw, () -> report(w));
        assertTrue(report(w).contains("a is read at i-2, i+2, and in 1 more column of a"), report(w));
        assembles(uw);
        Random rnd = new Random(36);
        for (int[] s : new int[][] {{3, 3}, {5, 4}, {19, 21}, {20, 7}, {40, 41}, {70, 133}}) {
            sameAsJava(m, "jacobiRows", NestInputs.doubles2(rnd, s[0], s[1]), NestInputs.doubles2(rnd, s[0], s[1]), s[0], s[1]);
            sameAsJava(w, "rowsWide", NestInputs.doubles2(rnd, s[0], s[1]), NestInputs.doubles2(rnd, s[0], s[1]), s[0], s[1]);
        }
    }

    @Test
    void aColumnWithAGapHoldsTheMissingRowInARegister() throws Exception {
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
    void aWindowSummedByConstantLoopsIsUnrolledAndMarched() throws Exception {
        CompiledMethod m = CompilerTest.offload(MarchingKernels.class, "window");
        KernelPlan.Unchecked u = marched(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("unrolled the loops over di, dj"), report(m));
        assertTrue(report(m).contains("a is read at i-2, i-1, i, i+1, i+2, and in 4 more columns of a; 25 loads that"
                + " do not depend on i read once per chunk"), report(m));
        assertFalse(u.ptx().contains("fma"), u.ptx());
        assertEquals(java.util.List.of(), Verifier.problems("marching", m.body(), u.marched()));
        assertNoSpills(u);
        Random rnd = new Random(35);
        // sizes that are not multiples of the chunk or the block, single rows and columns, empty ranges
        int[][] sizes = {{5, 5}, {6, 130}, {Marching.CHUNK + 5, 7}, {Marching.CHUNK + 4, 129}, {41, 37}, {1, 40},
            {40, 1}, {4, 4}, {5, 1}, {0, 0}, {2 * Marching.CHUNK + 7, 5}};
        for (int[] s : sizes) {
            int n = s[0] * s[1];
            Object[] args = {NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, 25), s[0],
                s[1]};
            try {
                sameAsJava(m, "window", args);
            } catch (KernelInterpreter.HostInstead e) {
                assertTrue(s[0] < 5 || s[1] < 5, e::getMessage);
            }
        }
        // a too short, w too short: the proof fails, the checked kernel raises Java's exception and writes nothing
        for (Object[] bad : new Object[][] {
            {NestInputs.doubles(rnd, 9 * 9 - 1), NestInputs.doubles(rnd, 81), NestInputs.doubles(rnd, 25), 9, 9},
            {NestInputs.doubles(rnd, 81), NestInputs.doubles(rnd, 81), NestInputs.doubles(rnd, 24), 9, 9}}) {
            assertFalse(BoundsTest.proven(m, bad));
            BoundsTest.assertSameOutcome(m, MarchingKernels.class, "window", bad);
        }
        // the same array as input and output: never a silent result (the runtime runs such a call on the host, and
        // the interpreter, which does not check names, sees the race)
        double[] same = NestInputs.doubles(rnd, 12 * 12);
        RuntimeException e = assertThrows(RuntimeException.class, () -> KernelInterpreter.run(m, new Object[] {same,
            same, NestInputs.doubles(rnd, 25), 12, 12}, 1000));
        assertTrue(e instanceof KernelInterpreter.HostInstead || e instanceof KernelInterpreter.Race, e::toString);
    }

    @Test
    void aFloatWindowWalkedDownwardsIsUnrolledAndMarched() throws Exception {
        CompiledMethod m = CompilerTest.offload(MarchingKernels.class, "windowFloat");
        KernelPlan.Unchecked u = marched(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("unrolled the loops over di, dj"), report(m));
        assembles(u);
        Random rnd = new Random(36);
        for (int[] s : new int[][] {{3, 3}, {3, 200}, {Marching.CHUNK + 3, 3}, {70, 33}, {19, 129}}) {
            int n = s[0] * s[1];
            sameAsJava(m, "windowFloat", NestInputs.floats(rnd, n), NestInputs.floats(rnd, n),
                    NestInputs.floats(rnd, 2), s[0], s[1]);
        }
    }

    @Test
    void aWindowOverTheWrittenArrayIsNotMarched() throws Exception {
        Compiler.Result r = CompilerTest.compile(MarchingKernels.class, "windowInPlace");
        if (r instanceof Compiler.Offload o) {
            assertNull(marched(o.method()), () -> report(o.method()));
            assertFalse(report(o.method()).contains("unrolled"), () -> report(o.method()));
        }
    }

    @Test
    void theShapeSettingIsReadOverTheDefault() {
        assertEquals(Marching.Shape.DEFAULT, Marching.Shape.parse("chunk=abc,block=7"));
        Marching.Shape s = Marching.Shape.parse("chunk=32, chunk2d=64,block=64x4,block2d=256,fixed=off,prefetch=on");
        assertEquals(new Marching.Shape(true, 32, 64, 64, 4, 256, false, true), s);
        assertTrue(Marching.Shape.parse("gaps=on").gaps());
        assertFalse(Marching.Shape.DEFAULT.gaps());
        assertFalse(Marching.Shape.parse("off").on());
    }

    @Test
    void everyShapeGivesJavasResult() throws Exception {
        Random rnd = new Random(37);
        for (String text : new String[] {"chunk2d=5,block2d=32,fixed=off", "chunk2d=64,block2d=64",
            "chunk=3,block=16x2", "chunk=40,block=64x4", "prefetch=on", "prefetch=on,chunk=1,chunk2d=2",
            "prefetch=on,fixed=off,chunk2d=7"}) {
            String before = System.getProperty(Marching.Shape.PROPERTY);
            System.setProperty(Marching.Shape.PROPERTY, text);
            try {
                CompiledMethod w = CompilerTest.offload(MarchingKernels.class, "window");
                assertNotNull(marched(w), text);
                assembles(marched(w));
                int[] s = {29, 70};
                sameAsJava(w, "window", NestInputs.doubles(rnd, s[0] * s[1]), NestInputs.doubles(rnd, s[0] * s[1]),
                        NestInputs.doubles(rnd, 25), s[0], s[1]);
                CompiledMethod p = CompilerTest.offload(MarchingKernels.class, "sevenPoint");
                assertNotNull(marched(p), text);
                assembles(marched(p));
                int[] d = {37, 11, 45};
                int n = d[0] * d[1] * d[2];
                sameAsJava(p, "sevenPoint", NestInputs.doubles(rnd, n), NestInputs.doubles(rnd, n), d[0], d[1], d[2],
                        0.4, 0.1);
            } finally {
                if (before == null) {
                    System.clearProperty(Marching.Shape.PROPERTY);
                } else {
                    System.setProperty(Marching.Shape.PROPERTY, before);
                }
            }
        }
    }

    static void assertNoSpills(KernelPlan.Unchecked u) throws Exception {
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assembleWithoutSpills(ptxas, u.entry(), u.ptx()), u.ptx());
        }
    }

    @Test
    void nestsOutsideTheShapeAreNotMarched() {
        for (String name : new String[] {"inPlace", "variableOffset", "noReuse", "annotated"}) {
            String before = System.getProperty(Marching.Shape.PROPERTY);
            // noReuse's column has a gap (rows i - 1 and i + 1), which 2D nests fill by default
            System.setProperty(Marching.Shape.PROPERTY, "gaps2d=off");
            try {
                Compiler.Result r = CompilerTest.compile(MarchingKernels.class, name);
                if (r instanceof Compiler.Offload o) {
                    assertNull(marched(o.method()), name);
                }
            } finally {
                if (before == null) {
                    System.clearProperty(Marching.Shape.PROPERTY);
                } else {
                    System.setProperty(Marching.Shape.PROPERTY, before);
                }
            }
        }
    }
}
