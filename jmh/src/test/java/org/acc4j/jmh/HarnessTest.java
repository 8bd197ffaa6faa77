package org.acc4j.jmh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.acc4j.Acc;
import org.acc4j.spi.Backend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The benchmark harness at small sizes, without the agent: arguments, checks, streams versions, host detection. */
class HarnessTest {
    private Backend installed;

    @AfterEach
    void restore() {
        if (installed != null) {
            Acc.install(installed);
            installed = null;
        }
    }

    @Test
    void sizesParse() {
        assertArrayEquals(new int[] {8192}, Workload.dims("8192"));
        assertArrayEquals(new int[] {512, 512, 64}, Workload.dims("512x512x64"));
        assertThrows(IllegalArgumentException.class, () -> Workload.dims("4x8"));
        assertThrows(IllegalArgumentException.class, () -> Workload.of("jacobi", "32x32x32"));
        assertThrows(IllegalArgumentException.class, () -> Workload.of("nosuch", "32"));
        assertThrows(IllegalArgumentException.class, () -> Workload.of("stencil", "32"));
    }

    @Test
    void inputsAreSeededAndOutputsFresh() {
        Object[] a = Workload.of("jacobi", "40").freshArgs();
        Object[] b = Workload.of("jacobi", "41").freshArgs();
        Object[] c = Workload.of("jacobi", "40").freshArgs();
        assertArrayEquals((double[]) a[0], (double[]) c[0]);
        assertFalse(a[1] == c[1], "each state gets its own output array");
        assertEquals(41 * 41, ((double[]) b[0]).length);
        for (double x : (double[]) a[0]) {
            assertTrue(x >= -1 && x < 1);
        }
    }

    @ParameterizedTest
    @CsvSource({"jacobi,37", "dgemm,29", "gaussblur,33", "copy,31", "transpose,31", "vectoradd,1000",
        "stencil,13x11x9", "laplacian,13x11x9", "wave13pt,13x11x9"})
    void streamsVersionIsPlainJavaBitForBit(String sample, String size) {
        StreamsState s = new StreamsState(Sample.of(sample)) { };
        s.setUp(size); // checks against the reference, throws on a difference
        assertNull(s.workload.expected().difference(s.args, null));
        assertFalse(s.workload.outputsUntouched(s.args), "the reference writes something");
    }

    @ParameterizedTest
    @CsvSource({"jacobi,37", "dgemm,29", "stencil,13x11x9", "wave13pt,13x11x9"})
    void serialRunsTheReference(String sample, String size) {
        SerialState s = new SerialState(Sample.of(sample)) { };
        s.setUp(size);
        s.run();
        assertNull(s.workload.expected().difference(s.args, null));
    }

    @Test
    void aWrongResultIsNamed() {
        Workload w = Workload.of("jacobi", "20");
        Object[] args = w.freshArgs();
        w.reference().call(args);
        ((double[]) args[1])[21] += 1e-12;
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.check("test", args, null));
        assertTrue(e.getMessage().contains("[21]"), e.getMessage());
    }

    @Test
    void largeDgemmIsCheckedOnSamplesLikeTheSample() {
        Object[] args = {new double[4], new double[4], new double[4], 2, 2, 2};
        Expected e = Expected.sampledDgemm(new Object[] {new double[] {1, 2, 3, 4}, new double[] {5, 6, 7, 8},
            null, 2, 2, 2}, 10);
        assertTrue(e.sampled());
        assertNotNull(e.difference(args, null));
        args[2] = new double[] {19, 22, 43, 50};
        assertNull(e.difference(args, null));
        assertTrue(Workload.of("dgemm", "2048").sampled());
        assertFalse(Workload.of("dgemm", "1024").sampled());
    }

    @Test
    void gpuModeRefusesHostTime() {
        GpuState s = new GpuState(Sample.of("jacobi"), GpuState.Transfers.RESIDENT) { };
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.setUp("24", "map2_4"));
        assertTrue(e.getMessage().contains("on the host"), e.getMessage());
    }

    /** A backend that claims a device but has none: the kernel (no agent here) writes the host arrays. */
    @Test
    void aKernelThatRunsOnTheHostIsCaughtEvenWhenTheRuntimeClaimsADevice() {
        installed = Acc.install(new ClaimsDevice());
        GpuState s = new GpuState(Sample.of("stencil"), GpuState.Transfers.EACH_CALL) { };
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.setUp("13x11x9", "map3_2"));
        assertTrue(e.getMessage().contains("the host for this call"), e.getMessage());
    }

    @Test
    void hostRunsAreTimedOnlyWhenAsked() {
        System.setProperty(GpuState.ALLOW_HOST, "true");
        try {
            GpuState s = new GpuState(Sample.of("transpose"), GpuState.Transfers.RESIDENT) { };
            s.setUp("33", "par");
            s.run();
            assertNull(s.workload.expected().difference(s.args, null));
            s.tearDown();
        } finally {
            System.clearProperty(GpuState.ALLOW_HOST);
        }
    }

    /** A family declared by its benchmark class, as DotBench will be: a method that returns its result. */
    @Test
    void aSampleOutsideTheCatalogueThatReturnsAValue() {
        Sample sum = new Sample("sum", (r, d) -> new Object[] {r.array(d[0]), d[0]},
                a -> { }, Kernel.of(HarnessTest.class, "sum", List.of()), v -> Kernel.of(HarnessTest.class, "sum",
                List.of()), 1e-12);
        Workload w = Workload.of(sum, "1000");
        Object[] args = w.freshArgs();
        w.check("sum", args, sum(((double[]) args[0]), 1000));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.check("sum", args, 1.0e9));
        assertTrue(e.getMessage().contains("returned"), e.getMessage());
    }

    /** The dot product's streams mode adds in chunks: bit for bit its serial twin, and a dot product. */
    @ParameterizedTest
    @CsvSource({"1000", "65536", "200003"})
    void dotStreamsMatchesItsSerialOrderAndIsWithinTheSumBound(String size) {
        StreamsState s = new StreamsState(DotBench.SAMPLE) { };
        s.setUp(size); // bit for bit against Streams.dotInOrder, throws on a difference
        double got = (double) s.run();
        double[] x = (double[]) s.args[0];
        double[] y = (double[]) s.args[1];
        int n = (int) s.args[2];
        assertEquals(Double.doubleToLongBits(Streams.dotInOrder(x, y, n)), Double.doubleToLongBits(got));
        // both orders are within n roundings of the exact sum of the same products: |error| <= gamma_n sum|p_i|
        double plain = org.acc4j.samples.Dot.dotPlain(x, y, n);
        double sumAbs = 0;
        for (int i = 0; i < n; i++) {
            sumAbs += Math.abs(x[i] * y[i]);
        }
        double gamma = n * 0x1p-53 / (1 - n * 0x1p-53);
        assertTrue(Math.abs(got - plain) <= 2 * gamma * sumAbs, got + " vs " + plain);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> s.workload.checkStreams("dot", s.args, Math.nextUp(got)));
        assertTrue(e.getMessage().contains("same order"), e.getMessage());
        if (n == 200003) {
            // four chunks: here the chunked order rounds differently from the serial loop, which is why the streams
            // mode has its own serial twin (with equal sums this test would show nothing about the order)
            assertTrue(got != plain, "the seeded inputs at 200003 give two different roundings");
        }
    }

    /** The double[][] forms: the same values as the flat ones row by row, so the same results. */
    @ParameterizedTest
    @CsvSource({"jacobi,37", "dgemm,29", "transpose,31", "copy,31"})
    void rowsFormComputesWhatTheFlatFormDoes(String sample, String size) {
        SerialState rows = new SerialState(Sample.rows(sample)) { };
        rows.setUp(size);
        rows.run();
        assertNull(rows.workload.expected().difference(rows.args, null));
        SerialState flat = new SerialState(Sample.of(sample)) { };
        flat.setUp(size);
        flat.run();
        int out = sample.equals("dgemm") ? 2 : 1;
        double[][] r = (double[][]) rows.args[out];
        double[] f = (double[]) flat.args[out];
        int n = r.length;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                assertEquals(Double.doubleToLongBits(f[i * n + j]), Double.doubleToLongBits(r[i][j]),
                        sample + " [" + i + "][" + j + "]");
            }
        }
        assertFalse(rows.workload.outputsUntouched(rows.args));
        // a wrong element is named by row and column
        r[3][4] += 1e-12;
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> rows.workload.check("test", rows.args, null));
        assertTrue(e.getMessage().contains("[3][4]"), e.getMessage());
        Object[] fresh = rows.workload.freshArgs();
        assertTrue(rows.workload.outputsUntouched(fresh));
        assertFalse(fresh[out] == rows.args[out]);
    }

    @Test
    void rowsFormHostRunIsCheckedAndLargeDgemmSampled() {
        System.setProperty(GpuState.ALLOW_HOST, "true");
        try {
            GpuState s = new GpuState(Sample.rows("jacobi"), GpuState.Transfers.EACH_CALL) { };
            s.setUp("33", "default");
            s.run();
            assertNull(s.workload.expected().difference(s.args, null));
            s.tearDown();
        } finally {
            System.clearProperty(GpuState.ALLOW_HOST);
        }
        double[][] a = {{1, 2}, {3, 4}};
        double[][] b = {{5, 6}, {7, 8}};
        Expected e = Expected.sampledDgemm(new Object[] {a, b, null, 2, 2, 2}, 10);
        Object[] args = {a, b, new double[2][2], 2, 2, 2};
        assertTrue(e.difference(args, null).contains("]["), e.difference(args, null));
        args[2] = new double[][] {{19, 22}, {43, 50}};
        assertNull(e.difference(args, null));
        assertThrows(IllegalArgumentException.class, () -> Sample.rows("stencil"));
        assertTrue(Arrays.stream(Workload.arrays(args)).anyMatch(o -> o instanceof double[][]));
    }

    static double sum(double[] a, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
        }
        return s;
    }

    private static final class ClaimsDevice implements Backend {
        @Override public String name() { return "fake device"; }
        @Override public void init() { }
        @Override public void shutdown() { }
        @Override public int deviceCount() { return 1; }
        @Override public boolean onDevice() { return true; }
        @Override public void copyin(Object array) { }
        @Override public void create(Object array) { }
        @Override public void copyout(Object array) { }
        @Override public void delete(Object array) { }
        @Override public void updateDevice(Object array) { }
        @Override public void updateHost(Object array) { }
        @Override public boolean isPresent(Object array) { return true; }
        @Override public void waitAll() { }
    }
}
