package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.acc4j.Acc;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The two-dimensional marched kernels as the compiler makes them by default (chunks of a few rows per thread, each
 * chunk's steps written out, the Jacobi sweep's middle row in a register): the Gaussian blur and the Jacobi sweep on
 * the GPU against plain Java, every element bit for bit, at sizes whose rows are not a multiple of the chunk nor their
 * columns of the block, single rows and columns, and the benchmarks' size. Skips, saying why, where there is no device.
 */
@Tag("gpu")
class MarchStepsGpuTest {
    private static final int[][] SIZES = {{5, 5}, {6, 7}, {7, 130}, {9, 3000}, {3001, 5}, {1027, 2051}, {1030, 129},
        {4099, 4097}, {8192, 8192}};

    static Stream<MarchingCases.Case> cases() {
        List<MarchingCases.Case> out = new ArrayList<>(MarchingCases.windows(SIZES));
        Random r = new Random(2027);
        for (int[] s : SIZES) {
            int n = s[0] * s[1];
            out.add(new MarchingCases.Case(Jacobi.class, "sweep", "([D[DII)V", new Object[] {MarchingCases.doubles(r, n),
                MarchingCases.doubles(r, n), s[0], s[1]}, s[0] + "x" + s[1]));
        }
        return out.stream();
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @Test
    void theBlurAndTheSweepAreMarchedWithTheirStepsWrittenOut() throws Exception {
        for (String[] m : new String[][] {{"Gaussblur", "blur", "([D[D[DII)V"}, {"Jacobi", "sweep", "([D[DII)V"}}) {
            byte[] classFile;
            try (InputStream in = MarchStepsGpuTest.class.getResourceAsStream(m[0] + ".class")) {
                classFile = in.readAllBytes();
            }
            Compiler.Result r = Compiler.compile(classFile, m[1], m[2], 90);
            assertTrue(r instanceof Compiler.Offload, m[0] + "." + m[1] + ": " + r);
            KernelPlan.Unchecked u = ((Compiler.Offload) r).method().kernels().get(0).unchecked();
            assertNotNull(u.marched(), m[0] + "." + m[1] + " is not marched");
            String note = u.marched().notes().get(u.marched().notes().size() - 1);
            assertTrue(note.contains("written out"), note);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void marchedTwoDimensionalStencilsMatchPlainJava(MarchingCases.Case c) throws Exception {
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        Object[] args = c.copy();
        assertTrue(AccRuntime.offload(c.owner(), c.name(), c.descriptor(), null, args), c + " did not run on the device");
        MarchingCases.assertSame(plain, args, c + " on the GPU");
    }
}
