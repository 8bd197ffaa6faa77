package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.TilingKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.pass.Tiling;
import org.acc4j.compiler.ptx.TiledEmitter;
import org.junit.jupiter.api.Test;

/**
 * Shared-memory tiling of transpose- and matmul-shaped nests: which nests are tiled and the report's reason, the
 * tiled kernel through ptxas (every candidate matmul tile, with no register spills), and its results on the
 * interpreter (which runs the tiled kernel block by block, with its shared
 * tile and barriers) against plain Java for sizes that are not multiples of the tile, single rows and columns,
 * empty ranges and calls whose bounds proofs fail (the checked kernel then raises Java's exception).
 */
class TilingTest {
    private static KernelPlan.Unchecked tiled(CompiledMethod m) {
        KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
        return u != null && u.tiled() != null ? u : null;
    }

    private static void assembles(KernelPlan.Unchecked u) throws Exception {
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, u.entry(), u.ptx()), u.ptx());
        }
    }

    /**
     * {@code m} with its matmul kernel shaped by {@code tile} (its PTX emitted again): how the tests run every
     * candidate of {@link Tiling.MatmulTile}, whichever one the compiler's configuration selects.
     */
    static CompiledMethod withTile(CompiledMethod m, Tiling.MatmulTile tile) {
        java.util.List<KernelPlan> ks = new java.util.ArrayList<>();
        for (KernelPlan k : m.kernels()) {
            KernelPlan.Unchecked u = k.unchecked();
            if (u != null && u.tiled() instanceof Tiling.Matmul mm) {
                Tiling.Matmul t = mm.withTile(tile);
                u = new KernelPlan.Unchecked(u.entry(), TiledEmitter.emit(m.body(), t, u.entry(), k.params(), 90),
                        u.sites(), u.checks(), t);
            }
            ks.add(new KernelPlan(k.region(), k.entry(), k.ptx(), k.params(), k.sites(), u));
        }
        return new CompiledMethod(m.body(), ks, m.data(), m.report(), m.outputs(), m.guards());
    }

    /**
     * The tiled matmul kernels in their default shapes (the register-tiled one and the FP64 tensor-core one), against
     * their golden files: a change to either is reviewed as a diff.
     */
    @Test
    void tiledMatmulKernelsMatchTheirGolden() throws Exception {
        KernelPlan.Unchecked exact = tiled(withTile(CompilerTest.offload(TilingKernels.class, "matmul"),
                Tiling.MatmulTile.CANDIDATES.get(0)));
        Golden.check(PtxGoldenTest.GOLDEN, exact.entry() + ".ptx", exact.ptx());
        CompiledMethod relaxed = CompilerTest.offload(TilingKernels.class, "matmulRelaxed");
        KernelPlan k = relaxed.kernels().get(0);
        Tiling.Matmul t = ((Tiling.Matmul) k.unchecked().tiled()).withTensor(Tiling.TensorTile.CANDIDATES.get(0));
        Golden.check(PtxGoldenTest.GOLDEN, k.unchecked().entry() + ".ptx",
                TiledEmitter.emit(relaxed.body(), t, k.unchecked().entry(), k.params(), 90));
    }

    /** The method once per candidate tile, each kernel assembled without spills. */
    private static java.util.List<CompiledMethod> everyTile(CompiledMethod m) throws Exception {
        java.util.List<CompiledMethod> out = new java.util.ArrayList<>();
        for (Tiling.MatmulTile t : Tiling.MatmulTile.CANDIDATES) {
            CompiledMethod mt = withTile(m, t);
            KernelPlan.Unchecked u = tiled(mt);
            assertNotNull(u, () -> report(m));
            assertTrue(u.ptx().contains("tile " + t.name()), t::name);
            assertFalse(u.ptx().contains("fma"));
            Path ptxas = Ptxas.find();
            if (ptxas != null) {
                assertNull(Ptxas.assembleWithoutSpills(ptxas, u.entry(), u.ptx()), t.name());
            }
            out.add(mt);
        }
        return out;
    }

    private static String report(CompiledMethod m) {
        return String.join("\n", m.report());
    }

    @Test
    void aFlatTransposeIsTiledAndMatchesJava() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "transposeFlat");
        KernelPlan.Unchecked u = tiled(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("tiled for shared memory: in is read along c and out written along r"), report(m));
        assertTrue(u.ptx().contains("bar.sync") && u.ptx().contains(".shared"));
        assertEquals(java.util.List.of(), u.sites());
        assembles(u);
        Random rnd = new Random(11);
        int[][] sizes = {{0, 5}, {5, 0}, {1, 1}, {1, 77}, {77, 1}, {32, 32}, {33, 65}, {64, 96}, {100, 37}, {31, 8}};
        for (int[] s : sizes) {
            int n = s[0] * s[1];
            Object[] args = {NestInputs.doubles(rnd, n), new double[n], s[0], s[1]};
            if (n > 0) {
                assertTrue(BoundsTest.proven(m, args));
            }
            if (n == 0) {
                // an empty range: the run-time check that the writes do not overlap may send the call to the host
                try {
                    BoundsTest.assertSameOutcome(m, TilingKernels.class, "transposeFlat", args);
                } catch (KernelInterpreter.HostInstead e) {
                    assertTrue(e.getMessage().contains("writes the same elements"), e::getMessage);
                }
                continue;
            }
            BoundsTest.assertSameOutcome(m, TilingKernels.class, "transposeFlat", args);
        }
        // the arrays too short: the proof fails, the checked kernel raises Java's exception
        Object[] bad = {NestInputs.doubles(rnd, 40 * 40), new double[40 * 40 - 1], 40, 40};
        assertFalse(BoundsTest.proven(m, bad));
        BoundsTest.assertSameOutcome(m, TilingKernels.class, "transposeFlat", bad);
    }

    @Test
    void aTransposeReadAlongTheOuterLoopIsTiled() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "transposeOuterRead");
        KernelPlan.Unchecked u = tiled(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("a is read along i and b written along j"), report(m));
        assembles(u);
        Random rnd = new Random(12);
        for (int[] s : new int[][] {{70, 33}, {1, 40}, {40, 1}, {0, 0}, {96, 64}}) {
            int n = s[0] * s[1];
            float[] a = new float[n];
            for (int k = 0; k < n; k++) {
                a[k] = rnd.nextFloat();
            }
            try {
                BoundsTest.assertSameOutcome(m, TilingKernels.class, "transposeOuterRead", a, new float[n], s[0], s[1]);
            } catch (KernelInterpreter.HostInstead e) {
                assertEquals(0, n, e::getMessage);
            }
        }
    }

    @Test
    void twoDimensionalArraysAreTiled() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "transpose2D");
        KernelPlan.Unchecked u = tiled(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("in is read along j and out written along i"), report(m));
        assembles(u);
        Random rnd = new Random(13);
        for (int[] s : new int[][] {{45, 70}, {1, 33}, {33, 1}, {64, 64}}) {
            Object[] args = {new double[s[1]][s[0]], NestInputs.doubles2(rnd, s[0], s[1]), s[0], s[1]};
            assertTrue(BoundsTest.proven(m, args));
            BoundsTest.assertSameOutcome(m, TilingKernels.class, "transpose2D", args);
        }
        // a short row: the checked kernel raises Java's exception
        double[][] out = new double[20][20];
        out[13] = new double[19];
        Object[] bad = {out, NestInputs.doubles2(rnd, 20, 20), 20, 20};
        assertFalse(BoundsTest.proven(m, bad));
        BoundsTest.assertSameOutcome(m, TilingKernels.class, "transpose2D", bad);
    }

    @Test
    void offsetsInclusiveBoundsAndNarrowElements() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "transposeWindow");
        KernelPlan.Unchecked u = tiled(m);
        assertNotNull(u, () -> report(m));
        assembles(u);
        Random rnd = new Random(14);
        int n = 50;
        byte[] in = new byte[n * n];
        rnd.nextBytes(in);
        BoundsTest.assertSameOutcome(m, TilingKernels.class, "transposeWindow", in, new byte[n * n + 3], n, 2, 44);
        BoundsTest.assertSameOutcome(m, TilingKernels.class, "transposeWindow", in, new byte[n * n + 3], n, 7, 7);
        BoundsTest.assertSameOutcome(m, TilingKernels.class, "transposeWindow", in, new byte[n * n + 3], n, 9, 3);
        // out of bounds at the last column of the window
        BoundsTest.assertSameOutcome(m, TilingKernels.class, "transposeWindow", in, new byte[n * n + 3], n, 2, 49);
    }

    @Test
    void longElements() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "transposeLong");
        KernelPlan.Unchecked u = tiled(m);
        assertNotNull(u, () -> report(m));
        assembles(u);
        Random rnd = new Random(15);
        long[] in = new long[39 * 39];
        for (int k = 0; k < in.length; k++) {
            in[k] = rnd.nextLong();
        }
        BoundsTest.assertSameOutcome(m, TilingKernels.class, "transposeLong", in, new long[39 * 39], 39);
    }

    @Test
    void theSameArrayUnderTwoNamesRunsOnTheHost() {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "transposeLong");
        long[] a = new long[16 * 16];
        assertThrows(KernelInterpreter.HostInstead.class, () -> KernelInterpreter.run(m, new Object[] {a, a, 16}, 4));
    }

    @Test
    void copiesAndComputedValuesAreNotTiled() {
        assertNull(tiled(CompilerTest.offload(TilingKernels.class, "copy")));
        assertNull(tiled(CompilerTest.offload(TilingKernels.class, "scaledTranspose")));
    }

    @Test
    void aMatmulIsTiledAndMatchesJavaBitForBit() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "matmul");
        KernelPlan.Unchecked u = tiled(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("tiled for shared memory and registers: c[i, j] = sum over k of a * b"), report(m));
        assertFalse(u.ptx().contains("fma"));
        assembles(u);
        Random rnd = new Random(21);
        int[][] sizes = {{1, 1, 1}, {1, 70, 3}, {70, 1, 17}, {64, 64, 16}, {65, 67, 33}, {3, 130, 40}, {20, 20, 0},
            {0, 5, 5}, {5, 0, 5}, {129, 131, 9}, {128, 128, 8}};
        for (CompiledMethod mt : everyTile(m)) {
            for (int[] s : sizes) {
                Object[] args = {NestInputs.doubles(rnd, s[0] * s[2]), NestInputs.doubles(rnd, s[2] * s[1]),
                    new double[s[0] * s[1]], s[0], s[1], s[2]};
                try {
                    BoundsTest.assertSameOutcome(mt, TilingKernels.class, "matmul", args);
                } catch (KernelInterpreter.HostInstead e) {
                    // an empty range may make the check that the writes do not overlap send the call to the host
                    assertTrue(s[0] * s[1] == 0 || s[1] == 1, e::getMessage);
                }
            }
        }
        // c too short: the proof fails and the checked kernel raises Java's exception
        Object[] bad = {NestInputs.doubles(rnd, 30 * 30), NestInputs.doubles(rnd, 30 * 30), new double[30 * 30 - 2], 30,
            30, 30};
        assertFalse(BoundsTest.proven(m, bad));
        BoundsTest.assertSameOutcome(m, TilingKernels.class, "matmul", bad);
        // c is a: the call does not run on the device
        double[] same = NestInputs.doubles(rnd, 16 * 16);
        assertThrows(KernelInterpreter.HostInstead.class,
                () -> KernelInterpreter.run(m, new Object[] {same, NestInputs.doubles(rnd, 256), same, 16, 16, 16}, 4));
    }

    @Test
    void twoDimensionalAndTransposedMatmuls() throws Exception {
        CompiledMethod m2 = CompilerTest.offload(TilingKernels.class, "matmul2D");
        KernelPlan.Unchecked u2 = tiled(m2);
        assertNotNull(u2, () -> report(m2));
        assembles(u2);
        Random rnd = new Random(22);
        for (CompiledMethod mt : everyTile(m2)) {
            for (int n : new int[] {1, 33, 70, 130}) {
                BoundsTest.assertSameOutcome(mt, TilingKernels.class, "matmul2D", NestInputs.doubles2(rnd, n, n),
                        NestInputs.doubles2(rnd, n, n), new double[n][n], n);
            }
        }
        CompiledMethod mt = CompilerTest.offload(TilingKernels.class, "matmulTransposed");
        KernelPlan.Unchecked ut = tiled(mt);
        assertNotNull(ut, () -> report(mt));
        assembles(ut);
        for (CompiledMethod mtt : everyTile(mt)) {
            for (int[] s : new int[][] {{45, 0}, {45, 7}, {66, 65}, {66, 70}}) {
                int n = s[0];
                BoundsTest.assertSameOutcome(mtt, TilingKernels.class, "matmulTransposed",
                        NestInputs.doubles(rnd, n * n), NestInputs.doubles(rnd, n * n), new double[n * n], n, s[1]);
            }
        }
    }

    @Test
    void theMatmulTileIsSelectedByName() throws Exception {
        String before = System.getProperty(Tiling.MatmulTile.PROPERTY);
        try {
            for (Tiling.MatmulTile t : Tiling.MatmulTile.CANDIDATES) {
                System.setProperty(Tiling.MatmulTile.PROPERTY, t.name());
                assertEquals(t, Tiling.MatmulTile.configured());
                assertNull(Tiling.MatmulTile.configurationNote());
                CompiledMethod m = CompilerTest.offload(TilingKernels.class, "matmul");
                assertTrue(report(m).contains("(tile " + t.name() + ": " + t.blockI() + "x" + t.blockJ()), report(m));
            }
            System.setProperty(Tiling.MatmulTile.PROPERTY, "96x96");
            assertEquals(Tiling.MatmulTile.CANDIDATES.get(0), Tiling.MatmulTile.configured());
            CompiledMethod m = CompilerTest.offload(TilingKernels.class, "matmul");
            assertTrue(report(m).contains("acc4j.matmulTile (or ACC4J_MATMUL_TILE) is 96x96, which names no matmul tile"),
                    report(m));
        } finally {
            if (before == null) {
                System.clearProperty(Tiling.MatmulTile.PROPERTY);
            } else {
                System.setProperty(Tiling.MatmulTile.PROPERTY, before);
            }
        }
    }

    @Test
    void nonFiniteValuesKeepJavasResults() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "matmul");
        Random rnd = new Random(23);
        int n = 40;
        double[] a = NestInputs.doubles(rnd, n * n);
        double[] b = NestInputs.doubles(rnd, n * n);
        a[5] = Double.POSITIVE_INFINITY;
        b[77] = Double.NaN;
        a[300] = -0.0;
        b[301] = 1e308;
        a[302] = 1e308;
        for (CompiledMethod mt : everyTile(m)) {
            BoundsTest.assertSameOutcome(mt, TilingKernels.class, "matmul", a, b, new double[n * n], n, n, n);
        }
    }

    @Test
    void anAccumulatingMatmulStartsFromC() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "matmulAccumulate");
        KernelPlan.Unchecked u = tiled(m);
        assertNotNull(u, () -> report(m));
        assertTrue(report(m).contains("c[i, j] += sum over k of a * b"), report(m));
        assembles(u);
        Random rnd = new Random(24);
        for (CompiledMethod mt : everyTile(m)) {
            for (int n : new int[] {1, 17, 65, 70, 129}) {
                BoundsTest.assertSameOutcome(mt, TilingKernels.class, "matmulAccumulate",
                        NestInputs.doubles(rnd, n * n), NestInputs.doubles(rnd, n * n), NestInputs.doubles(rnd, n * n),
                        n);
            }
        }
    }
}
