package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.List;
import java.util.Arrays;
import java.util.Random;
import java.util.function.BiFunction;
import org.acc4j.compiler.fixtures.IfReductionKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.Reduction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Maxima and minima written with an {@code if}: found as reductions, their kernels assembled, and the kernel
 * interpreter (the device's thread mapping and combining order) against plain Java on random inputs full of ties,
 * both zeros, infinities and NaN, with initial values of the same kinds, compared bit for bit.
 */
class IfReductionsTest {
    private static final double[] SPECIAL = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, 0.5, -0.5, 1.0, -1.0, 2.0, Double.MIN_VALUE, -Double.MIN_VALUE};
    /** Values for inputs whose extremes are zeros: which zero, and whether NaN or m wins, then decides. */
    private static final double[] ZEROS = {0.0, -0.0, Double.NaN, -1.0, Double.NEGATIVE_INFINITY};
    private static final long[] SPECIAL_LONG = {0, 1, -1, 7, -7, Integer.MAX_VALUE, Integer.MIN_VALUE,
        Long.MAX_VALUE, Long.MIN_VALUE};
    /** Sizes: none, fewer than a warp, and more than the threads of the capped grid, so that threads stride. */
    private static final int[] SIZES = {0, 1, 3, 31, 200, 1000};

    @ParameterizedTest
    @CsvSource({
        "maxGreaterInt, max:m", "maxLessLong, max:m", "minLessEqualInt, min:m", "minGreaterLong, min:m",
        "maxAbsDouble, max:m", "maxGreaterEqualDouble, max:m", "maxLessFloat, max:m", "minLessFloat, min:m",
        "minGreaterEqualDouble, min:m", "maxSelectInt, max:m", "maxAbs2d, max:m"})
    void isAReductionWhoseKernelAssembles(String method, String reduction) throws Exception {
        CompiledMethod m = CompilerTest.offload(IfReductionKernels.class, method);
        KernelPlan k = m.kernels().get(0);
        assertEquals(List.of("reduction(" + reduction + ")"),
                k.region().reductions().stream().map(Reduction::toString).toList());
        assertTrue(m.report().stream().anyMatch(l -> l.contains("reduction(" + reduction + ")")), m.report()::toString);
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), "ptxas rejects " + k.entry());
        }
    }

    @Test
    void mgsNormFindsTheSumAndTheMaximumInOneLoop() throws Exception {
        for (String method : List.of("normMax", "normSum")) {
            CompiledMethod m = CompilerTest.offload(IfReductionKernels.class, method);
            assertEquals(List.of("reduction(+:s)", "reduction(max:max)"),
                    m.kernels().get(0).region().reductions().stream().map(Reduction::toString).toList());
        }
        CompiledMethod max = CompilerTest.offload(IfReductionKernels.class, "normMax");
        KernelPlan k = max.kernels().get(0);
        Golden.check(PtxGoldenTest.GOLDEN, k.entry() + ".ptx", k.ptx());
        CompiledMethod sum = CompilerTest.offload(IfReductionKernels.class, "normSum");
        Random rnd = new Random(11);
        for (int n : SIZES) {
            for (int trial = 0; trial < 4; trial++) {
                double[] r = doubles(rnd, n, trial % 3);
                for (int blocks : new int[] {1, 2, 8}) {
                    Object[] args = {r, n};
                    assertBits(IfReductionKernels.normMax(r, n), KernelInterpreter.run(max, args, blocks), "normMax n=" + n);
                    double expected = IfReductionKernels.normSum(r, n);
                    double got = (Double) KernelInterpreter.run(sum, args, blocks);
                    assertTrue(Double.compare(expected, got) == 0 || Math.abs(expected - got) <= 1e-12 * Math.abs(expected),
                            "normSum n=" + n + ": " + expected + " vs " + got);
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"maxAbsDouble", "maxGreaterEqualDouble", "minGreaterEqualDouble", "maxAbs2d"})
    void doublesGiveJavasBits(String method) throws Exception {
        compare(method, (rnd, n, mode) -> doubles(rnd, n, mode), IfReductionsTest::initial);
    }

    @ParameterizedTest
    @CsvSource({"maxLessFloat", "minLessFloat"})
    void floatsGiveJavasBits(String method) throws Exception {
        compare(method, (rnd, n, mode) -> {
            double[] d = doubles(rnd, n, mode);
            float[] f = new float[n];
            for (int i = 0; i < n; i++) {
                f[i] = (float) d[i];
            }
            return f;
        }, (rnd, mode) -> (float) (double) initial(rnd, mode));
    }

    @ParameterizedTest
    @CsvSource({"maxGreaterInt", "minLessEqualInt", "maxSelectInt"})
    void intsGiveJavasResults(String method) throws Exception {
        compare(method, (rnd, n, mode) -> {
            int[] a = new int[n];
            for (int i = 0; i < n; i++) {
                a[i] = mode > 0 ? (int) SPECIAL_LONG[rnd.nextInt(7)] : rnd.nextInt();
            }
            return a;
        }, (rnd, mode) -> (int) SPECIAL_LONG[rnd.nextInt(7)]);
    }

    @ParameterizedTest
    @CsvSource({"maxLessLong", "minGreaterLong"})
    void longsGiveJavasResults(String method) throws Exception {
        compare(method, (rnd, n, mode) -> {
            long[] a = new long[n];
            for (int i = 0; i < n; i++) {
                a[i] = mode > 0 ? SPECIAL_LONG[rnd.nextInt(SPECIAL_LONG.length)] : rnd.nextLong();
            }
            return a;
        }, (rnd, mode) -> SPECIAL_LONG[rnd.nextInt(SPECIAL_LONG.length)]);
    }

    /** Java's own answers for the cases the forms differ in, to show what the tests above compare with. */
    @Test
    void theComparisonDecidesZerosAndNaNs() throws Exception {
        CompiledMethod strict = CompilerTest.offload(IfReductionKernels.class, "maxAbsDouble");
        double[] zeros = {0.0, -0.0, Double.NaN, 0.0};
        // a NaN never replaces m, a NaN m is never replaced, and > keeps the first of equal zeros: m itself
        assertBits(-0.0, KernelInterpreter.run(strict, new Object[] {zeros, 4, -0.0}, 2), "-0.0 kept");
        assertBits(Double.NaN, KernelInterpreter.run(strict, new Object[] {zeros, 4, Double.NaN}, 2), "NaN kept");
        assertBits(0.0, KernelInterpreter.run(strict, new Object[] {zeros, 4, -1.0}, 2), "the first zero");
        CompiledMethod orEqual = CompilerTest.offload(IfReductionKernels.class, "minGreaterEqualDouble");
        // m >= x takes the last of equal values: x is +0.0 for a zero element, so a -0.0 m gives way
        assertBits(0.0, KernelInterpreter.run(orEqual, new Object[] {new double[] {-0.0}, 1, -0.0}, 2), ">= replaces");
        assertBits(IfReductionKernels.minGreaterEqualDouble(new double[] {-0.0}, 1, -0.0), 0.0, "Java agrees");
    }

    @Test
    void valuesThatMayBeNegativeZeroOrUnorderedTestsAreRefusedWithTheReason() {
        String raw = CompilerTest.host(IfReductionKernels.class, "maxRawDouble").construct();
        assertTrue(raw.contains("m is not a reduction") && raw.contains("which may be -0.0"), raw);
        // the index of the maximum too: a search, a reduction and a loop for the index (SearchesTest)
        CompiledMethod arg = CompilerTest.offload(IfReductionKernels.class, "argMax");
        assertTrue(arg.report().stream().anyMatch(l -> l.contains("a search for the first index of the greatest m")),
                arg.report()::toString);
        String unordered = CompilerTest.host(IfReductionKernels.class, "maxUnordered").construct();
        assertTrue(unordered.contains("m is not a reduction"), unordered);
    }

    private interface Inputs {
        Object make(Random rnd, int n, int mode);
    }

    /** The method against the interpreter over sizes, inputs, initial values and grids; the result compared bit for bit. */
    private static void compare(String name, Inputs inputs, BiFunction<Random, Integer, Object> initial)
            throws Exception {
        CompiledMethod m = CompilerTest.offload(IfReductionKernels.class, name);
        Method plain = Arrays.stream(IfReductionKernels.class.getMethods())
                .filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
        boolean twoD = plain.getParameterTypes()[0] == double[][].class;
        Random rnd = new Random(name.hashCode());
        for (int n : SIZES) {
            for (int trial = 0; trial < 12; trial++) {
                Object a = inputs.make(rnd, twoD ? n * 3 : n, trial % 3);
                Object[] args = twoD ? new Object[] {rows((double[]) a, n), n, 3}
                        : new Object[] {a, n, initial.apply(rnd, trial % 3)};
                Object expected = plain.invoke(null, args);
                for (int blocks : new int[] {1, 2, 8}) {
                    assertBits(expected, KernelInterpreter.run(m, args, blocks),
                            name + " n=" + n + " trial " + trial + " blocks " + blocks + " m=" + (twoD ? "" : args[2]));
                }
            }
        }
    }

    private static double[][] rows(double[] a, int n) {
        double[][] out = new double[n][];
        for (int i = 0; i < n; i++) {
            out[i] = Arrays.copyOfRange(a, 3 * i, 3 * i + 3);
        }
        return out;
    }

    /**
     * Random doubles: for {@code mode} 0 Gaussian, for 1 mostly a few values that include both zeros, infinities
     * and NaN, for 2 only zeros of both signs, NaN and negative values.
     */
    private static double[] doubles(Random rnd, int n, int mode) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = mode == 2 ? ZEROS[rnd.nextInt(ZEROS.length)]
                    : mode == 1 && rnd.nextInt(4) != 0 ? SPECIAL[rnd.nextInt(SPECIAL.length)] : rnd.nextGaussian() * 3;
        }
        return d;
    }

    private static Object initial(Random rnd, int mode) {
        return mode == 2 ? ZEROS[rnd.nextInt(ZEROS.length)] : SPECIAL[rnd.nextInt(SPECIAL.length)];
    }

    private static void assertBits(Object expected, Object got, String what) {
        Object e = expected;
        Object g = got;
        if (e instanceof Double x) {
            e = Double.doubleToRawLongBits(x);
            g = Double.doubleToRawLongBits((Double) got);
        } else if (e instanceof Float x) {
            e = Float.floatToRawIntBits(x);
            g = Float.floatToRawIntBits((Float) got);
        }
        assertEquals(e, g, () -> what + ": expected " + expected + ", got " + got);
    }
}
