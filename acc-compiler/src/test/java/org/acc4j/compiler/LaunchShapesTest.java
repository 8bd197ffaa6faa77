package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.ScanKernels;
import org.acc4j.compiler.fixtures.ShapeKernels;
import org.acc4j.compiler.fixtures.TilingKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.plan.LaunchShapes;
import org.junit.jupiter.api.Test;

/**
 * The block shapes a kernel may be timed with: which kernels get candidates and why the others keep their block, and,
 * for every candidate of every tunable kernel (of the variant the launch picks), the kernel run by the interpreter
 * thread by thread with that block (its race check on) against plain Java on random inputs, bit for bit on every
 * element, with a grid capped small (grid-stride loops) and not.
 */
class LaunchShapesTest {
    private static LaunchShapes.Choice shapes(CompiledMethod m, boolean proven) {
        return LaunchShapes.of(m.kernels().get(0), proven);
    }

    /**
     * Every candidate of the variant the interpreter launches (the one without the checks when the proofs hold, as
     * on the device), against plain Java; returns how many candidates ran.
     */
    private static int candidatesMatchJava(String name, Object... args) throws Exception {
        return candidatesMatchJava(ShapeKernels.class, name, args);
    }

    private static int candidatesMatchJava(Class<?> owner, String name, Object... args) throws Exception {
        CompiledMethod m = CompilerTest.offload(owner, name);
        Method method = Arrays.stream(owner.getMethods()).filter(x -> x.getName().equals(name))
                .findFirst().orElseThrow();
        Object[] plain = NestInputs.copy(args);
        Object expected = method.invoke(null, plain);
        int seen = 0;
        for (int i = 0; ; i++) {
            int candidate = i;
            boolean[] ran = new boolean[1];
            java.util.Set<String> variants = new java.util.HashSet<>();
            for (int maxBlocks : new int[] {3, 64}) {
                Object[] d = NestInputs.copy(args);
                int[][] used = new int[1][];
                Object got = KernelInterpreter.run(m, d, maxBlocks, (plan, proven) -> {
                    LaunchShapes.Choice c = LaunchShapes.of(plan, proven);
                    assertTrue(c.tunable(), () -> name + ": " + c.fixedWhy());
                    variants.add(proven ? "unchecked" : "checked");
                    ran[0] = candidate < c.blocks().size();
                    used[0] = ran[0] ? c.blocks().get(candidate) : null;
                    return used[0];
                });
                if (!ran[0]) {
                    break;
                }
                String where = name + " (" + variants + ") with block " + Arrays.toString(used[0]) + ", at most "
                        + maxBlocks + " blocks";
                assertEquals(expected, got, where);
                for (int k = 0; k < d.length; k++) {
                    assertBitsEqual(plain[k], d[k], where + ", argument " + k);
                }
            }
            if (!ran[0]) {
                return seen;
            }
            seen++;
        }
    }

    private static void assertBitsEqual(Object e, Object a, String where) {
        if (e instanceof double[] x) {
            double[] y = (double[]) a;
            for (int q = 0; q < x.length; q++) {
                assertEquals(Double.doubleToRawLongBits(x[q]), Double.doubleToRawLongBits(y[q]), where + " element " + q);
            }
        } else if (e instanceof float[] x) {
            float[] y = (float[]) a;
            for (int q = 0; q < x.length; q++) {
                assertEquals(Float.floatToRawIntBits(x[q]), Float.floatToRawIntBits(y[q]), where + " element " + q);
            }
        } else if (e instanceof int[] x) {
            assertArrayEquals(x, (int[]) a, where);
        } else {
            assertEquals(e, a, where);
        }
    }

    private static double[] doubles(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble() * 2 - 1;
        }
        return a;
    }

    private static float[] floats(Random r, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextFloat() * 2 - 1;
        }
        return a;
    }

    @Test
    void jacobiWithNoHintsIsTunedAndEveryShapeGivesJavasBits() throws Exception {
        CompiledMethod m = CompilerTest.offload(ShapeKernels.class, "jacobi");
        assertNotNull(m.kernels().get(0).unchecked(), "the bounds are proven");
        LaunchShapes.Choice checked = shapes(m, false);
        assertArrayEquals(new int[] {128, 2, 1}, checked.blocks().get(0), "the mapping's own block comes first");
        assertEquals(7, checked.blocks().size());
        assertTrue(checked.blocks().stream().anyMatch(b -> Arrays.equals(b, new int[] {32, 8, 1})));
        Random r = new Random(42);
        // 37 x 29: neither a multiple of a block nor of the marched chunk
        int rows = 37;
        int cols = 29;
        // the variant without checks is marched (the row between i - 1 and i + 1 in a register): blocks along x only
        assertNotNull(m.kernels().get(0).unchecked().marched());
        LaunchShapes.Choice marched = shapes(m, true);
        assertTrue(marched.tunable() && marched.blocks().stream().allMatch(b -> b[1] == 1 && b[2] == 1),
                marched.blocks().toString());
        assertEquals(marched.blocks().size(), candidatesMatchJava("jacobi", doubles(r, rows * cols),
                doubles(r, rows * cols), rows, cols));
    }

    @Test
    void twoAndThreeLevelNestsAndOneLevelNests() throws Exception {
        Random r = new Random(7);
        assertEquals(7, candidatesMatchJava("scaleRows", doubles(r, 23 * 41), doubles(r, 41), new double[23 * 41], 23,
                41));
        CompiledMethod box = CompilerTest.offload(ShapeKernels.class, "box");
        assertTrue(shapes(box, false).tunable(), shapes(box, false).fixedWhy());
        candidatesMatchJava("box", floats(r, 5 * 9 * 17), new float[5 * 9 * 17], 5, 9, 17);
        CompiledMethod saxpy = CompilerTest.offload(ShapeKernels.class, "saxpy");
        List<int[]> blocks = shapes(saxpy, false).blocks();
        assertTrue(blocks.stream().allMatch(b -> b[1] == 1 && b[2] == 1), "one block axis");
        assertTrue(blocks.stream().anyMatch(b -> b[0] == 1024));
        candidatesMatchJava("saxpy", 0.75f, floats(r, 3001), floats(r, 3001), 3001);
    }

    @Test
    void aMarchedStencilIsTunedOverItsBlockAxesAndEveryShapeGivesJavasBits() throws Exception {
        CompiledMethod m = MarchingTest.withSetting("points=off", "sevenPoint");
        assertNotNull(m.kernels().get(0).unchecked().marched());
        LaunchShapes.Choice c = shapes(m, true);
        assertArrayEquals(new int[] {32, 8, 1}, c.blocks().get(0));
        assertTrue(c.blocks().stream().allMatch(b -> b[2] == 1), "two block axes: x and y");
        Random r = new Random(3);
        int n = 13 * 11 * 35;
        System.setProperty(org.acc4j.compiler.pass.Marching.Shape.PROPERTY, "points=off");
        try {
            assertEquals(7, candidatesMatchJava(org.acc4j.compiler.fixtures.MarchingKernels.class, "sevenPoint",
                    NestInputs.doubles(r, n), NestInputs.doubles(r, n), 13, 11, 35, 0.4, 0.1));
        } finally {
            System.clearProperty(org.acc4j.compiler.pass.Marching.Shape.PROPERTY);
        }
    }

    @Test
    void aStencilKeptAtOnePointPerThreadIsTunedOverItsThreeBlockAxes() throws Exception {
        CompiledMethod m = CompilerTest.offload(org.acc4j.compiler.fixtures.MarchingKernels.class, "laplacian");
        assertNotNull(m.kernels().get(0).unchecked().marched());
        LaunchShapes.Choice c = shapes(m, true);
        assertArrayEquals(new int[] {64, 2, 2}, c.blocks().get(0));
        Random r = new Random(4);
        int n = 13 * 11 * 35;
        assertTrue(candidatesMatchJava(org.acc4j.compiler.fixtures.MarchingKernels.class, "laplacian",
                NestInputs.doubles(r, n), NestInputs.doubles(r, n), 13, 11, 35, 0.3, 0.2, 0.1) > 1);
    }

    @Test
    void anIntegerReductionIsTunedAndEveryShapeGivesJavasSum() throws Exception {
        Random r = new Random(11);
        int[] a = new int[5000];
        for (int i = 0; i < a.length; i++) {
            a[i] = r.nextInt();
        }
        assertEquals(5, candidatesMatchJava("sumSquares", a, a.length));
    }

    @Test
    void kernelsWhoseResultOrGeometryFollowsTheBlockKeepTheirOwn() {
        LaunchShapes.Choice dot = shapes(CompilerTest.offload(ShapeKernels.class, "dot"), false);
        assertFalse(dot.tunable());
        assertEquals("its double reduction of s combines per block, so another block rounds differently", dot.fixedWhy());
        assertEquals(1, dot.blocks().size());
        LaunchShapes.Choice given = shapes(CompilerTest.offload(ShapeKernels.class, "given"), false);
        assertTrue(given.fixedWhy().startsWith("its block is set by @Loop at line "), given.fixedWhy());
        CompiledMethod transpose = CompilerTest.offload(TilingKernels.class, "transposeFlat");
        assertNotNull(transpose.kernels().get(0).unchecked().tiled());
        assertEquals("a tiled kernel: its block is its tile's", shapes(transpose, true).fixedWhy());
        assertTrue(shapes(transpose, false).tunable(), "its checked variant is a plain mapped kernel");
        LaunchShapes.Choice scan = shapes(CompilerTest.offload(ScanKernels.class, "addIntIncl"), false);
        assertEquals("a scan: its tiles are its blocks", scan.fixedWhy());
    }
}
