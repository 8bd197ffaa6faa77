package org.acc4j.compiler.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.acc4j.Kernels;
import org.acc4j.Loop;
import org.acc4j.compiler.Compiler;
import org.junit.jupiter.api.Test;

/**
 * The rows of a two-dimensional array a call's kernel may write ({@link MethodLaunch#writtenRows}): the least and
 * greatest row subscript of its stores for the call's values, through a row held in a local and through an inlined
 * helper; unknown for a subscript that is not linear or a method of several kernels.
 */
class WrittenRowsTest {
    @Kernels
    static void update(double[][] a, double[] colK, int k, int n) {
        for (int j = k + 1; j < n; j++) {
            double[] colJ = a[j];
            add(colJ, colK, k + 1, n);
        }
    }

    private static void add(double[] y, double[] x, int from, int to) {
        for (int i = from; i < to; i++) {
            y[i] += x[i];
        }
    }

    @Kernels
    static void scattered(double[][] a, int[] rows, int n) {
        for (@Loop(independent = true) int j = 0; j < n; j++) {
            a[rows[j]][0] = j;
        }
    }

    @Kernels
    static void twoNests(double[][] a, int n) {
        for (int j = 0; j < n; j++) {
            a[j][0] = j;
        }
        for (int j = 0; j < n; j++) {
            a[j][1] = j;
        }
    }

    private static MethodLaunch plan(String name) throws IOException {
        Method m = Arrays.stream(WrittenRowsTest.class.getDeclaredMethods()).filter(x -> x.getName().equals(name))
                .findFirst().orElseThrow();
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        byte[] bytes;
        try (InputStream in = WrittenRowsTest.class.getResourceAsStream("WrittenRowsTest.class")) {
            bytes = in.readAllBytes();
        }
        Compiler.Result r = Compiler.compile(bytes, name, desc, 90);
        assertTrue(r instanceof Compiler.Offload, () -> name + " stays on the host: " + ((Compiler.Host) r).reason());
        return MethodLaunch.of(((Compiler.Offload) r).method());
    }

    private static int index(MethodLaunch plan, String name) {
        return plan.arrays().stream().filter(a -> a.name().equals(name)).findFirst().orElseThrow().index();
    }

    @Test
    void theRowsOfALinearSubscriptAreKnown() throws IOException {
        MethodLaunch plan = plan("update");
        ValueReader none = (s, self, a) -> null;
        double[][] a = new double[10][10];
        HostCall call = plan.begin(none, null, new Object[] {a, a[3], 3, 10});
        assertArrayEquals(new long[] {4, 9}, plan.writtenRows(index(plan, "a"), call));
        HostCall empty = plan.begin(none, null, new Object[] {a, a[3], 9, 10});
        assertArrayEquals(new long[] {1, 0}, plan.writtenRows(index(plan, "a"), empty), "no column after the last");
    }

    @Test
    void otherwiseTheyAreNot() throws IOException {
        ValueReader none = (s, self, a) -> null;
        MethodLaunch scattered = plan("scattered");
        assertNull(scattered.writtenRows(index(scattered, "a"), scattered.begin(none, null,
                new Object[] {new double[4][1], new int[] {0, 1, 2, 3}, 4})), "a row read from memory");
        MethodLaunch two = plan("twoNests");
        assertNull(two.writtenRows(index(two, "a"), two.begin(none, null, new Object[] {new double[4][2], 4})),
                "two kernels");
    }
}
