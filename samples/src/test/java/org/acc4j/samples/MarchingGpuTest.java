package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.util.Random;
import java.util.stream.Stream;
import org.acc4j.Acc;
import org.acc4j.compiler.pass.Marching;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The marched stencils (7-point, Laplacian, 13-point wave with no hints) on the GPU against plain Java, every
 * element bit for bit, at sizes that are not multiples of a chunk or a block and at the benchmarks' sizes (many
 * chunks, the grid striding); a call whose input is too short raises Java's exception (the checked kernel runs).
 * Skips, saying why, where there is no device.
 */
@Tag("gpu")
class MarchingGpuTest {
    static Stream<MarchingCases.Case> cases() {
        return Stream.concat(MarchingCases.cases(new int[][] {{3, 3, 3}, {5, 6, 40}, {37, 9, 19}, {129, 67, 35},
            {256, 256, 64}, {64, 64, 300},
            // short stride-1 rows: nx for the 7-point stencil, nz for the Laplacian and the wave
            {40, 33, 3}, {20, 17, 5}, {30, 31, 64}, {9, 70, 65}, {3, 33, 40}, {64, 31, 30}, {65, 7, 9}}).stream(),
            MarchingCases.windows(new int[][] {{5, 5}, {21, 133}, {5, 3000}, {3001, 5}, {1027, 2051}, {4096, 4099}})
                    .stream());
    }

    @Test
    void aBlurIntoItsOwnInputRunsOnTheHostWithJavasResult() throws Exception {
        Random r = new Random(155);
        double[] a = MarchingCases.doubles(r, 300 * 301);
        double[] w = MarchingCases.doubles(r, 25);
        double[] plain = a.clone();
        Gaussblur.blurPlain(plain, plain, w, 300, 301);
        double[] same = a.clone();
        Object[] args = {same, same, w, 300, 301};
        // the written array is reachable under two names: the runtime keeps the call on the host, in Java's order
        if (!AccRuntime.offload(Gaussblur.class, "blur", "([D[D[DII)V", null, args)) {
            // false: the original body runs, as the agent's advice then does
            Gaussblur.blurPlain(same, same, w, 300, 301);
        } else {
            throw new AssertionError("a call whose output is its input ran on the device");
        }
        for (int q = 0; q < plain.length; q++) {
            assertEquals(Double.doubleToRawLongBits(plain[q]), Double.doubleToRawLongBits(same[q]), "element " + q);
        }
    }

    @Test
    void aBlurWithShortWeightsRaisesJavasExceptionAndWritesNothing() throws Exception {
        Random r = new Random(156);
        double[] a = MarchingCases.doubles(r, 64 * 64);
        double[] b = new double[64 * 64];
        String expected;
        try {
            Gaussblur.blurPlain(a, b.clone(), new double[24], 64, 64);
            throw new AssertionError("plain Java did not throw");
        } catch (ArrayIndexOutOfBoundsException e) {
            expected = e.getMessage();
        }
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> AccRuntime.offload(Gaussblur.class, "blur", "([D[D[DII)V", null, new Object[] {a, b,
                    new double[24], 64, 64}));
        assertEquals(expected, e.getMessage());
        for (double x : b) {
            assertEquals(0.0, x, "a call that threw leaves its output unwritten");
        }
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void marchedStencilsMatchPlainJava(MarchingCases.Case c) throws Exception {
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        Object[] args = c.copy();
        assertTrue(AccRuntime.offload(c.owner(), c.name(), c.descriptor(), null, args), c + " did not run on the device");
        MarchingCases.assertSame(plain, args, c + " on the GPU");
    }

    @Test
    void rowsBeyondTheGridsReachAreStridedOver() throws Exception {
        // more than 65535 blocks of rows: the grid does not cover the rows, so threads take the strided path
        int ny = 65536 * Marching.BLOCK_Y + 300;
        for (MarchingCases.Case c : MarchingCases.cases(new int[][] {{5, ny, 5}})) {
            Object[] plain = c.copy();
            c.method().invoke(null, plain);
            Object[] args = c.copy();
            assertTrue(AccRuntime.offload(c.owner(), c.name(), c.descriptor(), null, args), c + " did not run on the device");
            MarchingCases.assertSame(plain, args, c + " on the GPU");
        }
    }

    @Test
    void aShortInputRaisesJavasException() throws Exception {
        Random r = new Random(154);
        MarchingCases.Case c = new MarchingCases.Case(Stencil.class, "stencil", "([D[DIIIDD)V",
                new Object[] {MarchingCases.doubles(r, 40 * 40 * 39), new double[40 * 40 * 40], 40, 40, 40, 0.4, 0.1},
                "short a");
        String expected;
        try {
            c.method().invoke(null, c.copy());
            throw new AssertionError("plain Java did not throw");
        } catch (InvocationTargetException e) {
            expected = e.getCause().getMessage();
        }
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> AccRuntime.offload(c.owner(), c.name(), c.descriptor(), null, c.copy()));
        // the checked kernel runs (no bounds proof holds): it names one of the accesses that fail, the first to
        // reach the error record, which for several failing threads need not be the first in Java's order
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Index (\\d+) out of bounds for length 62400")
                .matcher(e.getMessage());
        assertTrue(m.matches(), e.getMessage() + " (plain Java: " + expected + ")");
        assertTrue(Integer.parseInt(m.group(1)) >= 62400, e.getMessage());
    }
}
