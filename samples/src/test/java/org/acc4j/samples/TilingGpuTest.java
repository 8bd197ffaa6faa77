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
 * The tiled transpose and matmul kernels on the GPU against plain Java, every element bit for bit, at sizes that
 * are not multiples of a tile, single rows and columns, and large ones (many blocks, the grid striding); and a call
 * whose arrays are too short raises Java's exception (the checked kernel runs). Skips, saying why, where there is
 * no device.
 */
@Tag("gpu")
class TilingGpuTest {
    static Stream<TilingCases.Case> cases() {
        return Stream.concat(TilingCases.transposes(new int[][] {{1, 1}, {1, 5000}, {5000, 1}, {33, 65}, {1000, 3001},
            {4097, 31}, {2048, 2048}}).stream(),
                TilingCases.matmuls(new int[][] {{1, 1, 1}, {1, 300, 7}, {300, 1, 9}, {65, 67, 33}, {64, 64, 16},
                    {500, 300, 701}, {1024, 1024, 1024}}).stream());
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void tiledKernelsMatchPlainJava(TilingCases.Case c) throws Exception {
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        Object[] args = c.copy();
        assertTrue(AccRuntime.offload(c.owner(), c.name(), c.descriptor(), null, args), c + " did not run on the device");
        TilingSamplesTest.assertSame(plain, args, c + " on the GPU");
    }

    @Test
    void anOutOfBoundsCallRaisesJavasException() throws Exception {
        Random r = new Random(153);
        TilingCases.Case c = new TilingCases.Case(Transpose.class, "transposeNaive",
                new Object[] {TilingCases.doubles(r, 300 * 200), new double[300 * 200 - 1], 300, 200}, "short out");
        String expected;
        try {
            c.method().invoke(null, c.copy());
            throw new AssertionError("plain Java did not throw");
        } catch (InvocationTargetException e) {
            expected = e.getCause().getMessage();
        }
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> AccRuntime.offload(c.owner(), c.name(), c.descriptor(), null, c.copy()));
        assertEquals(expected, e.getMessage());
    }
}
