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
import org.objectweb.asm.tree.MethodNode;
import org.junit.jupiter.api.Test;

/**
 * FP64 tensor-core matmuls ({@code @Kernels(relaxed = true)} on sm_90): the report says so, the kernel uses
 * {@code mma.sync m16n8k4} (or k8, k16) in every candidate shape and assembles without spills, and its results on
 * the interpreter (which takes each step as a fused multiply-add, in k's order) lie within the stated bound of plain
 * Java's:
 * {@code |x - java| <= 2 (p + 1) 2^-53 (|c0| + sum_k |a_ik| |b_kj|)}, twice the classical bound of a sum of p + 1
 * terms (Higham, "Accuracy and Stability of Numerical Algorithms", on inner products), since Java's own result has
 * that error too.
 */
class TensorCoreTilingTest {
    private static final double U = Math.ulp(1.0) / 2;

    private static Tiling.Matmul tiled(CompiledMethod m) {
        KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
        assertNotNull(u, () -> String.join("\n", m.report()));
        return (Tiling.Matmul) u.tiled();
    }

    /** {@code m}'s tensor-core kernel once per candidate tile, each assembled without spills. */
    private static java.util.List<CompiledMethod> everyTile(CompiledMethod m) throws Exception {
        java.util.List<CompiledMethod> out = new java.util.ArrayList<>();
        for (Tiling.TensorTile tile : Tiling.TensorTile.CANDIDATES) {
            java.util.List<KernelPlan> ks = new java.util.ArrayList<>();
            for (KernelPlan k : m.kernels()) {
                KernelPlan.Unchecked u = k.unchecked();
                Tiling.Matmul t = ((Tiling.Matmul) u.tiled()).withTensor(tile);
                String ptx = org.acc4j.compiler.ptx.TiledEmitter.emit(m.body(), t, u.entry(), k.params(), 90);
                assertTrue(ptx.contains("mma.sync.aligned.m16n8k" + tile.mmaK() + ".row.col.f64")
                        && ptx.contains("(tensor tile " + tile.name()), tile::name);
                String dump = System.getenv("TC_DUMP");
                if (dump != null) {
                    java.nio.file.Files.writeString(Path.of(dump, m.body().name() + "-" + tile.name() + ".ptx"), ptx);
                }
                Path ptxas = Ptxas.find();
                if (ptxas != null) {
                    assertNull(Ptxas.assembleWithoutSpills(ptxas, u.entry(), ptx), tile.name());
                }
                ks.add(new KernelPlan(k.region(), k.entry(), k.ptx(), k.params(), k.sites(),
                        new KernelPlan.Unchecked(u.entry(), ptx, u.sites(), u.checks(), t)));
            }
            out.add(new CompiledMethod(m.body(), ks, m.data(), m.report(), m.outputs(), m.guards()));
        }
        return out;
    }

    @Test
    void aRelaxedMatmulUsesTensorCoresOnSm90() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "matmulRelaxed");
        Tiling.Matmul t = tiled(m);
        String report = String.join("\n", m.report());
        assertTrue(t.tensorCores(), report);
        assertTrue(report.contains("tiled for FP64 tensor cores (@Kernels(relaxed = true)): c[i, j] = sum over k"), report);
        KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
        assertTrue(u.ptx().contains("mma.sync.aligned.m16n8k" + Tiling.TensorTile.configured().mmaK()
                + ".row.col.f64.f64.f64.f64"));
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assembleWithoutSpills(ptxas, u.entry(), u.ptx()));
        }
        // without relaxed, or below sm_90, the exact kernel
        assertFalse(tiled(CompilerTest.offload(TilingKernels.class, "matmul")).tensorCores());
        MethodNode mn = TestClasses.method(TestClasses.node(TilingKernels.class), "matmulRelaxed");
        Compiler.Result r80 = Compiler.compile(TestClasses.bytes(TilingKernels.class), "matmulRelaxed", mn.desc, 80);
        assertFalse(tiled(((Compiler.Offload) r80).method()).tensorCores());
    }

    @Test
    void theTensorTileIsSelectedByNameAndLargeStagesAreDynamicSharedMemory() throws Exception {
        String before = System.getProperty(Tiling.TensorTile.PROPERTY);
        try {
            for (Tiling.TensorTile t : Tiling.TensorTile.CANDIDATES) {
                System.setProperty(Tiling.TensorTile.PROPERTY, t.name());
                assertEquals(t, Tiling.TensorTile.configured());
                assertNull(Tiling.TensorTile.configurationNote());
                CompiledMethod m = CompilerTest.offload(TilingKernels.class, "matmulRelaxed");
                String report = String.join("\n", m.report());
                assertTrue(report.contains("(tensor tile " + t.name() + ": " + t.blockI() + "x" + t.blockJ()), report);
                KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
                assertEquals(t, tiled(m).tensor());
                // past 48 KiB the stages are dynamic shared memory, declared at module scope, and the plan says how much
                int dynamic = org.acc4j.compiler.plan.MethodLaunch.of(m).kernels().get(0).dynamicShared(true);
                assertEquals(t.sharedBytes() > 48 * 1024 ? t.sharedBytes() : 0, dynamic, t::name);
                assertEquals(0, org.acc4j.compiler.plan.MethodLaunch.of(m).kernels().get(0).dynamicShared(false));
                assertEquals(dynamic > 0, u.ptx().contains("\n.extern .shared .align 128 .b8 tiles[];\n\n.visible .entry"),
                        t::name);
                assertEquals(dynamic == 0, u.ptx().contains("\t.shared .align 128 .b8 tiles[" + t.sharedBytes() + "];"),
                        t::name);
            }
            System.setProperty(Tiling.TensorTile.PROPERTY, "96x96");
            assertEquals(Tiling.TensorTile.CANDIDATES.get(0), Tiling.TensorTile.configured());
            CompiledMethod m = CompilerTest.offload(TilingKernels.class, "matmulRelaxed");
            String report = String.join("\n", m.report());
            assertTrue(report.contains("acc4j.tensorTile (or ACC4J_TENSOR_TILE) is 96x96, which names no tensor tile"),
                    report);
        } finally {
            if (before == null) {
                System.clearProperty(Tiling.TensorTile.PROPERTY);
            } else {
                System.setProperty(Tiling.TensorTile.PROPERTY, before);
            }
        }
    }

    @Test
    void aShapeThatDoesNotCoverItsTilesIsRefused() {
        // 3 warps along j is no power of two; 2 stages of 256x256x16 exceed the shared memory of a block
        assertThrows(IllegalArgumentException.class, () -> new Tiling.TensorTile("x", 2, 3, 4, 4, 8, 3, 8, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Tiling.TensorTile("y", 4, 8, 4, 4, 32, 2, 8, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Tiling.TensorTile("z", 2, 4, 4, 4, 8, 3, 2, 1, 0));
        // the fragment pipeline needs two K steps per k tile, and loads ahead of the copies by itself
        assertThrows(IllegalArgumentException.class,
                () -> new Tiling.TensorTile("p", 2, 2, 4, 4, 16, 2, 16, 2, 0, true, false, true));
        assertThrows(IllegalArgumentException.class,
                () -> new Tiling.TensorTile("q", 2, 2, 4, 4, 16, 2, 4, 2, 0, true, true, true));
    }

    /**
     * The copies by steps: a shape with {@code affineCopies} issues a thread's pairs of a k tile as 16-byte copies
     * from one address stepped by a register (no element-by-element copy on that path), and keeps the general path
     * for the tiles where the steps do not hold; the pipelined shapes load a tile's first fragments after its
     * barrier, before the last step's mma of the tile before.
     */
    @Test
    void theCopiesStepAlongKAndThePipelineLoadsAhead() throws Exception {
        CompiledMethod m = CompilerTest.offload(TilingKernels.class, "matmulRelaxed");
        KernelPlan k = m.kernels().get(0);
        KernelPlan.Unchecked u = k.unchecked();
        for (Tiling.TensorTile tile : Tiling.TensorTile.CANDIDATES) {
            Tiling.Matmul t = ((Tiling.Matmul) u.tiled()).withTensor(tile);
            String ptx = org.acc4j.compiler.ptx.TiledEmitter.emit(m.body(), t, u.entry(), k.params(), 90);
            int general = ptx.split("cp\\.async\\.ca\\.shared\\.global", -1).length - 1;
            assertTrue(general > 0, tile::name);
            assertEquals(tile.affineCopies(), ptx.contains("$L_general"), tile::name);
            if (tile.affineCopies()) {
                // per k tile and operand: the stepped copies of every pair, unpredicated
                java.util.regex.Matcher stepped = java.util.regex.Pattern.compile(
                        "\\n\\tcp\\.async\\.cg\\.shared\\.global \\[%r\\d+\\+\\d+\\], \\[%rd\\d+\\], 16;").matcher(ptx);
                int n = 0;
                while (stepped.find()) {
                    n++;
                }
                int pairs = (tile.blockI() + tile.blockJ()) * tile.depth() / 2 / tile.threads();
                // the prologue's stages - 1 tiles, the loop's one, and the pipeline's first tile
                int copies = tile.stages() - 1 + 1 + (tile.pipelined() ? 1 : 0);
                assertEquals(pairs * copies, n, tile::name);
            }
            int barriers = ptx.split("bar\\.sync 0", -1).length - 1;
            assertEquals(tile.pipelined() ? 3 : 2, barriers, tile::name);
        }
    }

    @Test
    void flatProductsLieWithinTheBound() throws Exception {
        java.util.List<CompiledMethod> tiles = everyTile(CompilerTest.offload(TilingKernels.class, "matmulRelaxed"));
        Random rnd = new Random(31);
        int[][] sizes = {{1, 1, 1}, {65, 67, 33}, {130, 70, 17}, {64, 64, 16}, {3, 130, 40}, {20, 20, 0}, {70, 3, 129}};
        for (int[] s : sizes) {
            int mm = s[0];
            int n = s[1];
            int p = s[2];
            double[] a = NestInputs.doubles(rnd, mm * p);
            double[] b = NestInputs.doubles(rnd, p * n);
            double[] plain = new double[mm * n];
            TilingKernels.matmulRelaxed(a, b, plain, mm, n, p);
            for (CompiledMethod m : tiles) {
                for (int maxBlocks : new int[] {2, 1000}) {
                    double[] c = new double[mm * n];
                    java.util.Arrays.fill(c, Double.NaN);
                    KernelInterpreter.run(m, new Object[] {a.clone(), b.clone(), c, mm, n, p}, maxBlocks);
                    for (int i = 0; i < mm; i++) {
                        for (int j = 0; j < n; j++) {
                            double sum = 0;
                            for (int k = 0; k < p; k++) {
                                sum += Math.abs(a[i * p + k] * b[k * n + j]);
                            }
                            within(plain[i * n + j], c[i * n + j], 2 * (p + 1) * U * sum, s, i, j);
                        }
                    }
                }
            }
        }
    }

    @Test
    void twoDimensionalAccumulatingProductsLieWithinTheBound() throws Exception {
        CompiledMethod compiled = CompilerTest.offload(TilingKernels.class, "matmulRelaxed2D");
        assertTrue(tiled(compiled).tensorCores(), () -> String.join("\n", compiled.report()));
        assertTrue(tiled(compiled).accumulate());
        java.util.List<CompiledMethod> tiles = everyTile(compiled);
        Random rnd = new Random(32);
        for (int n : new int[] {1, 17, 65, 100}) {
            double[][] a = NestInputs.doubles2(rnd, n, n);
            double[][] b = NestInputs.doubles2(rnd, n, n);
            double[][] c0 = NestInputs.doubles2(rnd, n, n);
            double[][] plain = copy(c0);
            TilingKernels.matmulRelaxed2D(a, b, plain, n);
            for (CompiledMethod m : tiles) {
                double[][] c = copy(c0);
                KernelInterpreter.run(m, new Object[] {a, b, c, n}, 1000);
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++) {
                        double sum = Math.abs(c0[i][j]);
                        for (int k = 0; k < n; k++) {
                            sum += Math.abs(a[i][k] * b[k][j]);
                        }
                        within(plain[i][j], c[i][j], 2 * (n + 1) * U * sum, new int[] {n}, i, j);
                    }
                }
            }
        }
    }

    private static double[][] copy(double[][] x) {
        double[][] y = new double[x.length][];
        for (int r = 0; r < x.length; r++) {
            y[r] = x[r].clone();
        }
        return y;
    }

    private static void within(double expected, double got, double bound, int[] size, int i, int j) {
        assertTrue(Math.abs(got - expected) <= bound, () -> "size " + java.util.Arrays.toString(size) + " element (" + i
                + ", " + j + "): " + got + " against Java's " + expected + ", bound " + bound);
    }
}
