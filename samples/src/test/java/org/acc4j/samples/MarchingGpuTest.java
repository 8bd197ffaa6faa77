package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.util.Random;
import java.util.stream.Stream;
import org.acc4j.Acc;
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
        return MarchingCases.cases(new int[][] {{3, 3, 3}, {5, 6, 40}, {37, 9, 19}, {129, 67, 35}, {256, 256, 64},
            {64, 64, 300}}).stream();
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
