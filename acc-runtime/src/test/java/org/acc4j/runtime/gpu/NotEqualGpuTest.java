package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code !=} loops on the GPU ({@link NotEqualFixtures}), every output element compared with the same method run as
 * plain Java on the same random inputs (fixed seeds); a call whose loop would wrap around runs on the host with its
 * reason. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class NotEqualGpuTest {
    private static final int N = 1_000_003;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    private static Method find(String name) {
        for (Method m : NotEqualFixtures.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static String desc(Method m) {
        return MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
    }

    /** Runs {@code name} plainly and on the device on copies of {@code args}; asserts every element matches. */
    private static void matches(String name, Object... args) throws Exception {
        Method m = find(name);
        Object[] plain = copy(args);
        Object[] gpu = copy(args);
        m.invoke(null, plain);
        assertTrue(AccRuntime.offload(NotEqualFixtures.class, name, desc(m), null, gpu), name + " did not run on the device");
        for (int i = 0; i < args.length; i++) {
            OffloadGpuTest.assertSameArray(name + " argument " + i, plain[i], gpu[i]);
        }
    }

    private static Object[] copy(Object[] args) {
        Object[] c = args.clone();
        for (int i = 0; i < c.length; i++) {
            if (c[i] instanceof double[] d) {
                c[i] = d.clone();
            } else if (c[i] instanceof float[] f) {
                c[i] = f.clone();
            } else if (c[i] instanceof int[] x) {
                c[i] = x.clone();
            } else if (c[i] instanceof long[] l) {
                c[i] = l.clone();
            }
        }
        return c;
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian() * 10;
        }
        return d;
    }

    @Test
    void parallelLoop() throws Exception {
        Random r = new Random(21);
        matches("up", new double[N], doubles(r, N), doubles(r, N), N);
    }

    @Test
    void downwardByThreeMappedByTheUser() throws Exception {
        Random r = new Random(22);
        int[] a = new int[N];
        for (int i = 0; i < N; i++) {
            a[i] = r.nextInt();
        }
        matches("down3", a, N);
    }

    @Test
    void twoDimensionalNest() throws Exception {
        Random r = new Random(23);
        int rows = 1001;
        int cols = 997;
        matches("nest2D", new double[rows * cols], doubles(r, rows * cols), rows, cols);
    }

    @Test
    void collapsedNest() throws Exception {
        Random r = new Random(24);
        int rows = 513;
        int cols = 301;
        float[] b = new float[rows * 2 * cols];
        for (int i = 0; i < b.length; i++) {
            b[i] = (float) r.nextGaussian();
        }
        matches("collapsed", new float[rows * 2 * cols], b, rows, cols);
    }

    @Test
    void sequentialLoopWrapsAroundAsJava() throws Exception {
        Random r = new Random(25);
        int n = 4099;
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = r.nextLong();
        }
        matches("wrapping", out, n, Integer.MAX_VALUE - n / 2);
    }

    @Test
    void wholeStepsThroughTheSignRunOnTheDevice() throws Exception {
        matches("quarters", new int[] {5, 6, 7, 8}, Integer.MIN_VALUE, 0);
    }

    /** From 0 to Integer.MIN_VALUE by 2^30 Java wraps around: the runtime refuses the launch and says why. */
    @Test
    void aBoundReachedOnlyByWrappingAroundRunsOnTheHostWithTheReason() {
        int[] a = new int[4];
        PrintStream err = System.err;
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        boolean onDevice;
        System.setErr(new PrintStream(said, true, StandardCharsets.UTF_8));
        try {
            onDevice = AccRuntime.offload(NotEqualFixtures.class, "quarters", "([III)V", null,
                    new Object[] {a, 0, Integer.MIN_VALUE});
        } finally {
            System.setErr(err);
        }
        assertFalse(onDevice, "a wrapping != loop was launched");
        String text = said.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("runs on the host for this call") && text.contains("does not reach -2147483648"), text);
        // the original body, as the agent runs it after a false
        NotEqualFixtures.quarters(a, 0, Integer.MIN_VALUE);
        assertArrayEquals(new int[] {1, 3, 0, 0}, a);
    }
}
