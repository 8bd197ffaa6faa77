package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.site.RewritingLoader;
import org.acc4j.compiler.site.Rewriter;
import org.acc4j.runtime.gpu.NotEqualFixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Deferred launches on the GPU: calls on present data return once their kernels are queued, and every operation that
 * needs the device's data waits for them. Each test queues a slow kernel ({@link DeferFixtures#churn}, milliseconds)
 * or a chain of calls (after the tuner's first launches of the kernel, which are waited for), then at once does the operation under test: without the wait, a copy on the
 * staging streams would overlap the kernel, and freed memory would be handed out while the kernel writes it. Every
 * output element is compared with plain Java on random inputs from fixed seeds. Skips, saying why, where there is no
 * CUDA device.
 */
@Tag("gpu")
class DeferGpuTest {
    /** 16 MiB of ints per array: large enough for the staged copies. */
    private static final int N = 1 << 22;
    /** Steps of the slow kernel: milliseconds at N threads on an H100. */
    private static final int ROUNDS = 50_000;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @AfterEach
    void switchBackOn() {
        AccRuntime.get().deferForTest(true);
    }

    private static int[] ints(Random r, int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt();
        }
        return a;
    }

    private static boolean offload(String name, Object... args) {
        return AccRuntime.offload(DeferFixtures.class, name, DeferFixtures.descriptor(name), null, args);
    }

    private static long deferred() {
        return AccRuntime.get().deferredForTest();
    }

    /**
     * Calls {@code name} on {@code args} (its arrays made present for it, and deleted after) until a launch of it is
     * deferred: the tuner times a kernel's first launches at each size, and those are waited for.
     */
    private static void warm(String name, Object... args) {
        for (Object a : args) {
            if (a instanceof int[] || a instanceof double[][]) {
                Acc.copyin(a);
            }
        }
        boolean done = false;
        for (int i = 0; i < 200 && !done; i++) {
            long before = deferred();
            assertTrue(offload(name, args));
            done = deferred() > before;
        }
        for (Object a : args) {
            if (a instanceof int[] || a instanceof double[][]) {
                Acc.delete(a);
            }
        }
        assertTrue(done, name + ": no launch deferred in 200 calls");
    }

    private static void step(int[] x, int[] y, int c, int n, int times) {
        for (int t = 0; t < times; t++) {
            DeferFixtures.step(x, y, c, n);
        }
    }

    @Test
    void aChainOfDeferredCallsThenUpdateHostGivesJavasResult() {
        Random r = new Random(71);
        int[] x = ints(r, N);
        int[] y = ints(r, N);
        int[] expected = x.clone();
        step(expected, y, 3, N, 25);
        warm("step", new int[N], new int[N], 3, N);
        Acc.copyin(x);
        Acc.copyin(y);
        long before = deferred();
        for (int t = 0; t < 25; t++) {
            assertTrue(offload("step", x, y, 3, N));
        }
        assertEquals(25, deferred() - before, "every call on present data was deferred");
        Acc.updateHost(x);
        assertArrayEquals(expected, x);
        Acc.delete(x);
        Acc.delete(y);
    }

    /** An n-row grid of random values; with {@code jagged}, odd rows one element longer (the row table is used). */
    private static double[][] grid(Random r, int n, boolean jagged) {
        double[][] g = new double[n][];
        for (int i = 0; i < n; i++) {
            g[i] = new double[n + (jagged ? i % 2 : 0)];
            for (int j = 0; j < g[i].length; j++) {
                g[i][j] = r.nextDouble();
            }
        }
        return g;
    }

    @ParameterizedTest(name = "jagged rows: {0}")
    @ValueSource(booleans = {false, true})
    void aChainOfDeferredCallsOnRowsGivesJavasResult(boolean jagged) {
        int n = 1024;
        Random r = new Random(73);
        double[][] a = grid(r, n, jagged);
        double[][] b = grid(r, n, jagged);
        double[][] ea = new double[n][];
        double[][] eb = new double[n][];
        for (int i = 0; i < n; i++) {
            ea[i] = a[i].clone();
            eb[i] = b[i].clone();
        }
        for (int t = 0; t < 10; t++) {
            DeferFixtures.smooth(ea, eb, n);
            DeferFixtures.smooth(eb, ea, n);
        }
        warm("smooth", grid(r, n, jagged), grid(r, n, jagged), n);
        Acc.copyin(a);
        Acc.copyin(b);
        long before = deferred();
        for (int t = 0; t < 10; t++) {
            assertTrue(offload("smooth", a, b, n));
            assertTrue(offload("smooth", b, a, n));
        }
        assertEquals(20, deferred() - before, "every call on present rows was deferred, the written window's too");
        Acc.updateHost(a);
        Acc.updateHost(b);
        for (int i = 0; i < n; i++) {
            assertArrayEquals(ea[i], a[i], "row " + i + " of a");
            assertArrayEquals(eb[i], b[i], "row " + i + " of b");
        }
        Acc.delete(a);
        Acc.delete(b);
    }

    @Test
    void anUpdateOfAnInputWaitsForTheKernelReadingIt() {
        Random r = new Random(72);
        int[] in = ints(r, N);
        int[] out = new int[N];
        int[] expected = DeferFixtures.churned(in, ROUNDS, N);
        int[] next = ints(r, N);
        warm("churn", new int[N], new int[N], ROUNDS, N);
        Acc.copyin(in);
        Acc.copyin(out);
        long before = deferred();
        assertTrue(offload("churn", in, out, ROUNDS, N));
        assertEquals(1, deferred() - before);
        // the kernel reads in[i] after its steps: new values copied in early would show in out
        System.arraycopy(next, 0, in, 0, N);
        Acc.updateDevice(in);
        Acc.updateHost(out);
        assertArrayEquals(expected, out);
        // and the next call sees the new input
        assertTrue(offload("churn", in, out, ROUNDS, N));
        Acc.updateHost(out);
        assertArrayEquals(DeferFixtures.churned(next, ROUNDS, N), out);
        Acc.delete(in);
        Acc.delete(out);
    }

    @Test
    void aDeleteWaitsBeforeItsMemoryIsHandedOut() {
        Random r = new Random(73);
        int[] in = ints(r, N);
        int[] out = new int[N];
        int[] other = ints(r, N);
        int[] otherExpected = other.clone();
        Acc.copyin(in);
        Acc.copyin(out);
        assertTrue(offload("churn", in, out, ROUNDS, N));
        // out's buffer goes to the spare buffers and serves other's copy at once
        Acc.delete(out);
        Acc.copyin(other);
        java.util.Arrays.fill(other, 0);
        Acc.updateHost(other);
        assertArrayEquals(otherExpected, other, "the kernel wrote into memory handed to another array");
        Acc.delete(other);
        Acc.delete(in);
    }

    @Test
    void aCallThatIsWaitedForSeesTheDeferredResults() {
        Random r = new Random(74);
        int[] in = ints(r, N);
        int[] out = new int[N];
        int[] expected = DeferFixtures.churned(in, ROUNDS, N);
        long sum = 0;
        for (int v : expected) {
            sum += v;
        }
        Acc.copyin(in);
        Acc.copyin(out);
        assertTrue(offload("churn", in, out, ROUNDS, N));
        long before = deferred();
        Object[] value = AccRuntime.offloadValue(DeferFixtures.class, "total", DeferFixtures.descriptor("total"), null,
                new Object[] {out, N});
        assertEquals(0, deferred() - before, "a reduction's launch is waited for");
        assertEquals(sum, value[0]);
        Acc.updateHost(out);
        assertArrayEquals(expected, out);
        Acc.delete(in);
        Acc.delete(out);
    }

    @Test
    void aHostRunSeesTheDeferredResults() {
        int[] a = {5, 6, 7, 8};
        int[] y = {1, 2, 3, 4};
        int[] expected = a.clone();
        DeferFixtures.step(expected, y, 7, 4);
        NotEqualFixtures.quarters(expected, 0, Integer.MIN_VALUE);
        warm("step", new int[4], new int[4], 7, 4);
        Acc.copyin(a);
        Acc.copyin(y);
        long before = deferred();
        assertTrue(offload("step", a, y, 7, 4));
        assertEquals(1, deferred() - before);
        // a loop that wraps around runs on the host: its present arrays come to the host first
        java.io.PrintStream err = System.err;
        System.setErr(new java.io.PrintStream(new java.io.ByteArrayOutputStream()));
        boolean onDevice;
        try {
            onDevice = AccRuntime.offload(NotEqualFixtures.class, "quarters", "([III)V", null,
                    new Object[] {a, 0, Integer.MIN_VALUE});
        } finally {
            System.setErr(err);
        }
        assertFalse(onDevice);
        NotEqualFixtures.quarters(a, 0, Integer.MIN_VALUE);
        assertArrayEquals(expected, a);
        Acc.delete(a);
        Acc.delete(y);
    }

    @Test
    void aDataRegionsExitCopiesTheDeferredResultsBack() {
        Random r = new Random(75);
        int[] x = ints(r, N);
        int[] y = ints(r, N);
        int[] expected = x.clone();
        step(expected, y, 5, N, 12);
        warm("step", new int[N], new int[N], 5, N);
        Object token = AccRuntime.enterData(DeferFixtures.class, "steps", DeferFixtures.descriptor("steps"), null,
                new Object[] {x, y, 5, N, 12});
        long before = deferred();
        for (int t = 0; t < 12; t++) {
            assertTrue(offload("step", x, y, 5, N));
        }
        assertEquals(12, deferred() - before);
        AccRuntime.exitData(token);
        assertArrayEquals(expected, x);
    }

    @Test
    void anotherThreadsOperationWaitsForThisThreadsKernels() throws Exception {
        Random r = new Random(76);
        int[] in = ints(r, N);
        int[] out = new int[N];
        int[] expected = DeferFixtures.churned(in, ROUNDS, N);
        Acc.copyin(in);
        Acc.copyin(out);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            assertTrue(pool.submit(() -> offload("churn", in, out, ROUNDS, N)).get());
            pool.submit(() -> Acc.updateHost(out)).get();
            assertArrayEquals(expected, out);
            // calls of two threads queue behind each other
            int[] x = ints(r, N);
            int[] y = ints(r, N);
            int[] stepped = x.clone();
            step(stepped, y, 3, N, 8);
            Acc.copyin(x);
            Acc.copyin(y);
            java.util.List<java.util.concurrent.Future<Boolean>> calls = new java.util.ArrayList<>();
            for (int k = 0; k < 8; k++) {
                calls.add(pool.submit(() -> offload("step", x, y, 3, N)));
            }
            for (java.util.concurrent.Future<Boolean> f : calls) {
                assertTrue(f.get());
            }
            Acc.updateHost(x);
            assertArrayEquals(stepped, x);
            Acc.delete(x);
            Acc.delete(y);
        } finally {
            pool.shutdown();
        }
        Acc.delete(in);
        Acc.delete(out);
    }

    @Test
    void aKernelThatCanRaiseIsWaitedForAndThrowsFromItsOwnCall() {
        Random r = new Random(77);
        int[] a = ints(r, N);
        int[] b = new int[N];
        Acc.copyin(a);
        Acc.copyin(b);
        long before = deferred();
        assertTrue(offload("divide", a, b, 7, N));
        assertEquals(0, deferred() - before, "a division's launch is waited for");
        Acc.updateHost(b);
        int[] expected = new int[N];
        DeferFixtures.divide(a, expected, 7, N);
        assertArrayEquals(expected, b);
        assertThrows(ArithmeticException.class, () -> offload("divide", a, b, 0, N));
        Acc.delete(a);
        Acc.delete(b);
    }

    @Test
    void theSwitchOffWaitsForEveryLaunch() {
        AccRuntime.get().deferForTest(false);
        Random r = new Random(78);
        int[] x = ints(r, N);
        int[] y = ints(r, N);
        int[] expected = x.clone();
        step(expected, y, 9, N, 3);
        Acc.copyin(x);
        Acc.copyin(y);
        long before = deferred();
        for (int t = 0; t < 3; t++) {
            assertTrue(offload("step", x, y, 9, N));
        }
        assertEquals(0, deferred() - before);
        Acc.updateHost(x);
        assertArrayEquals(expected, x);
        Acc.delete(x);
        Acc.delete(y);
    }

    @Test
    void aCallOnDataNotPresentIsWaitedFor() {
        Random r = new Random(79);
        int[] x = ints(r, N);
        int[] y = ints(r, N);
        int[] expected = x.clone();
        step(expected, y, 3, N, 1);
        long before = deferred();
        assertTrue(offload("step", x, y, 3, N));
        assertEquals(0, deferred() - before, "its exit copies x back");
        assertArrayEquals(expected, x);
    }

    // ------------------------------------------------------------------ launch sites

    private static ClassLoader rewritten;

    private static synchronized void callSite(String name, Object... args) throws Throwable {
        if (rewritten == null) {
            rewritten = new RewritingLoader(DeferGpuTest.class.getClassLoader(), DeferSiteFixtures.class.getName(),
                    AccRuntime::register, Rewriter.RUNTIME);
        }
        Class<?> c = Class.forName(DeferSiteFixtures.class.getName(), true, rewritten);
        for (Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                try {
                    m.invoke(null, args);
                    return;
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        }
        throw new AssertionError(name);
    }

    @Test
    void twoNestsWithHostCodeBetweenThemGiveJavasResult() throws Throwable {
        Random r = new Random(80);
        int[] a = ints(r, N);
        int[] b = new int[N];
        int[] a2 = a.clone();
        int[] b2 = new int[N];
        DeferSiteFixtures.twoNests(a2, b2, N);
        // the tuner's first launches of each nest are waited for
        int[] p = new int[N];
        int[] q = new int[N];
        Acc.copyin(p);
        Acc.copyin(q);
        long warmed = 0;
        for (int i = 0; i < 200 && warmed < 2; i++) {
            long at = deferred();
            callSite("twoNests", p, q, N);
            warmed = deferred() - at;
        }
        Acc.delete(p);
        Acc.delete(q);
        assertEquals(2, warmed, "both nests' kernels deferred after the tuner's launches");
        Acc.copyin(a);
        Acc.copyin(b);
        long before = deferred();
        callSite("twoNests", a, b, N);
        assertEquals(2, deferred() - before, "both nests' kernels were deferred");
        Acc.updateHost(a);
        Acc.updateHost(b);
        assertArrayEquals(a2, a);
        assertArrayEquals(b2, b);
        Acc.delete(a);
        Acc.delete(b);
    }

    @Test
    void hostCodeReadingANestsResultWaitsForIt() throws Throwable {
        Random r = new Random(81);
        int[] a = ints(r, N);
        int[] b = new int[N];
        int[] a2 = a.clone();
        int[] b2 = new int[N];
        DeferSiteFixtures.readsBetween(a2, b2, N);
        // nothing present: the call's scope holds the arrays, moves a to the host for the host code and back
        callSite("readsBetween", a, b, N);
        assertArrayEquals(a2, a);
        assertArrayEquals(b2, b);
        // on present data too
        int[] c = ints(r, N);
        int[] d = new int[N];
        int[] c2 = c.clone();
        int[] d2 = new int[N];
        DeferSiteFixtures.readsBetween(c2, d2, N);
        Acc.copyin(c);
        Acc.copyin(d);
        callSite("readsBetween", c, d, N);
        Acc.updateHost(c);
        Acc.updateHost(d);
        assertArrayEquals(c2, c);
        assertArrayEquals(d2, d);
        Acc.delete(c);
        Acc.delete(d);
    }
}
