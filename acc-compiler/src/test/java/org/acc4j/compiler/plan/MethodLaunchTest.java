package org.acc4j.compiler.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.Kernels;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.junit.jupiter.api.Test;

/**
 * Launch plans as the runtime reads them, without a device: each call is driven through {@link MethodLaunch#run} with
 * a launch that does on the host what the kernel does, filled from the plan's slots alone, and compared with the same
 * Java method run plainly on random inputs from a fixed seed.
 */
class MethodLaunchTest {
    private static final long SEED = 20261124L;

    @Kernels
    static void scale(double[] x, double[] y, double a, int n) {
        for (int i = 0; i < n; i++) {
            y[i] = a * x[i];
        }
    }

    @Kernels
    static double normalise(double[] x, double[] y, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += x[i];
        }
        for (int i = 0; i < n; i++) {
            y[i] = x[i] / s;
        }
        return s;
    }

    @Kernels
    static void shift(int[] a, int[] b, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i + 1];
        }
    }

    @Kernels
    static void wraps(int[] a, int from, int to) {
        for (int i = from; i != to; i += 3) {
            a[i - from] = i;
        }
    }

    @Kernels
    static void addOne(double[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] += 1;
        }
    }

    @Kernels
    static void divide(int[] a, int[] b, int k, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i] / k;
        }
    }

    static final int[] FIELD = new int[5];

    @Kernels
    static void fromField(int[] out, int n) {
        for (int i = 0; i < n; i++) {
            out[i] = FIELD[i] * 2;
        }
    }

    private static MethodLaunch plan(String name) throws IOException {
        Method m = java.util.Arrays.stream(MethodLaunchTest.class.getDeclaredMethods())
                .filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        byte[] bytes;
        try (InputStream in = MethodLaunchTest.class.getResourceAsStream("MethodLaunchTest.class")) {
            bytes = in.readAllBytes();
        }
        Compiler.Result r = Compiler.compile(bytes, name, desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        CompiledMethod c = ((Compiler.Offload) r).method();
        return MethodLaunch.of(c);
    }

    /** Reads arguments only; a field is read by name from this class. */
    private static Object read(ValueSource s, Object self, Object[] args) {
        if (s instanceof ValueSource.Argument a) {
            return args[a.index()];
        }
        ValueSource.Field f = (ValueSource.Field) s;
        assertTrue(f.isStatic(), f.name());
        assertEquals(MethodLaunchTest.class.getName().replace('.', '/'), f.owner());
        try {
            return MethodLaunchTest.class.getDeclaredField(f.name()).get(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Object[] bind(MethodLaunch plan, Object[] args) {
        Object[] arrays = new Object[plan.arrays().size()];
        for (ArrayUse a : plan.arrays()) {
            arrays[a.index()] = read(a.source(), null, args);
        }
        return arrays;
    }

    private static double[] random(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextDouble() * 2 - 1;
        }
        return d;
    }

    /** The values a launch fills its kernel's parameters with, by kind, from the plan alone. */
    private record Filled(List<Object> scalars, List<Object> arrays, List<Integer> lengths, List<Object> hostValues) {
    }

    private static Filled fill(LaunchPlan k, HostCall call, Object[] arrays, Object[] args) {
        Filled f = new Filled(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (Slot s : k.slots()) {
            if (s instanceof Slot.Scalar sc) {
                f.scalars().add(ScalarType.widen(read(sc.source(), null, args)));
            } else if (s instanceof Slot.ArrayData d) {
                f.arrays().add(arrays[d.array()]);
            } else if (s instanceof Slot.ArrayLength l) {
                f.lengths().add(java.lang.reflect.Array.getLength(arrays[l.array()]));
            } else if (s instanceof Slot.HostValue h) {
                f.hostValues().add(k.hostValue(call, h));
            }
        }
        return f;
    }

    @Test
    void aLoopsSlotsTripAndGridComeFromTheCallsValues() throws IOException {
        MethodLaunch plan = plan("scale");
        assertEquals(1, plan.kernels().size());
        Random r = new Random(SEED);
        for (int n : new int[] {0, 1, 127, 128, 129, 1000, 100_000}) {
            double[] x = random(r, n);
            double[] y = new double[n];
            double a = r.nextDouble();
            Object[] args = {x, y, a, n};
            Object[] arrays = bind(plan, args);
            for (ArrayUse u : plan.arrays()) {
                assertEquals(u.name().equals("y"), u.written(), u.name());
                assertTrue(arrays[u.index()] == (u.name().equals("y") ? y : x), u.name());
            }
            assertEquals(2, plan.arrays().size());
            HostCall call = plan.begin(MethodLaunchTest::read, null, args);
            assertNull(call.refusal());
            assertEquals(n, call.trip(0));
            int launches = plan.kernels().size();
            int[] seen = {0};
            Object value = plan.run(call, (k, c) -> {
                LaunchPlan kp = plan.kernel(k);
                assertEquals(n, kp.trip(c));
                assertFalse(kp.proven(c, arrays, rows -> -1) && !kp.hasUnchecked());
                int[] grid = kp.grid(c, false, 132 * 16);
                if (n == 0) {
                    assertNull(grid);
                    return new long[0];
                }
                int threads = kp.threads(false);
                assertTrue((long) grid[0] * grid[1] * grid[2] * threads >= Math.min(n, 132L * 16 * threads),
                        "grid " + java.util.Arrays.toString(grid) + " x " + threads + " threads for " + n);
                Filled f = fill(kp, c, arrays, args);
                assertTrue(f.scalars().contains(a), f.scalars().toString());
                assertTrue(f.arrays().contains(x) && f.arrays().contains(y));
                // the kernel's work, from what the slots hold
                for (int i = 0; i < n; i++) {
                    y[i] = a * x[i];
                }
                seen[0]++;
                return new long[0];
            });
            assertNull(value);
            assertEquals(n == 0 ? 0 : launches, seen[0]);
            double[] expected = new double[n];
            scale(x, expected, a, n);
            assertArrayEquals(expected, y);
        }
    }

    @Test
    void aReductionsResultReachesTheNextLoopAndTheReturnValue() throws IOException {
        MethodLaunch plan = plan("normalise");
        assertEquals(2, plan.kernels().size());
        assertEquals(1, plan.kernel(0).reductions());
        // a sum of -0.0s stays -0.0, as in Java
        assertEquals(Double.doubleToRawLongBits(-0.0), plan.kernel(0).identityBits(0));
        Random r = new Random(SEED);
        for (int n : new int[] {1, 7, 1000}) {
            double[] x = random(r, n);
            double[] y = new double[n];
            Object[] args = {x, y, n};
            Object[] arrays = bind(plan, args);
            HostCall call = plan.begin(MethodLaunchTest::read, null, args);
            assertNull(call.refusal());
            double[] sum = {0};
            Object value = plan.run(call, (k, c) -> {
                LaunchPlan kp = plan.kernel(k);
                if (k == 0) {
                    for (int i = 0; i < n; i++) {
                        sum[0] += x[i];
                    }
                    return new long[] {Double.doubleToRawLongBits(sum[0])};
                }
                Filled f = fill(kp, c, arrays, args);
                assertEquals(1, f.hostValues().size(), "the sum reaches the second loop as a host value");
                double s = (Double) f.hostValues().get(0);
                assertEquals(sum[0], s);
                for (int i = 0; i < n; i++) {
                    y[i] = x[i] / s;
                }
                return new long[0];
            });
            double[] expected = new double[n];
            double s = normalise(x.clone(), expected, n);
            assertEquals(s, (Double) value);
            assertArrayEquals(expected, y);
        }
    }

    @Test
    void anImplicitCopyoutIsACopyUnlessTheLoopWritesEveryElement() throws IOException {
        MethodLaunch plan = plan("scale");
        int y = -1;
        for (int d = 0; d < plan.data().size(); d++) {
            if (plan.data().get(d).name().equals("y")) {
                y = d;
            }
        }
        assertTrue(y >= 0, plan.data().toString());
        double[] x = new double[10];
        double[] out = new double[10];
        DataUse.Kind whole = plan.clause(y, out, plan.begin(MethodLaunchTest::read, null, new Object[] {x, out, 2.0, 10}));
        DataUse.Kind part = plan.clause(y, out, plan.begin(MethodLaunchTest::read, null, new Object[] {x, out, 2.0, 9}));
        if (plan.data().get(y).kind() == DataUse.Kind.COPYOUT) {
            assertEquals(DataUse.Kind.COPYOUT, whole);
        }
        assertEquals(DataUse.Kind.COPY, part);
    }

    @Test
    void aVariantRaisesOnlyWhereAnErrorSiteStaysInIt() throws IOException {
        // every access proven on the host: the variant without checks can write no error record
        LaunchPlan scale = plan("scale").kernel(0);
        assertTrue(scale.hasUnchecked());
        assertTrue(scale.raises(false), "the checked kernel keeps its bounds checks");
        assertFalse(scale.raises(true), "the proven variant has no error site");
        // an integer division by a value that may be zero stays a site in both variants
        LaunchPlan divide = plan("divide").kernel(0);
        assertTrue(divide.raises(false));
        if (divide.hasUnchecked()) {
            assertTrue(divide.raises(true), "the division's check is never proven away");
            assertTrue(divide.fault(true, 1).divisionByZero());
        }
        // an access the host cannot prove keeps its check
        LaunchPlan wraps = plan("wraps").kernel(0);
        assertTrue(wraps.raises(false));
    }

    @Test
    void aFaultNamesTheArrayAndItsPlaceInTheCallsArrays() throws IOException {
        MethodLaunch plan = plan("shift");
        LaunchPlan k = plan.kernel(0);
        boolean named = false;
        for (int code = 1; ; code++) {
            Fault f;
            try {
                f = k.fault(false, code);
            } catch (IndexOutOfBoundsException e) {
                break;
            }
            if (!f.divisionByZero() && f.array().equals("a")) {
                named = true;
                assertEquals("a", plan.arrays().get(f.arrayIndex()).name());
                assertFalse(f.row());
                assertTrue(f.line() > 0);
            }
        }
        assertTrue(named, "no error site names the array a");
    }

    @Test
    void aLoopThatWouldWrapAroundIsRefusedWithItsReason() throws IOException {
        MethodLaunch plan = plan("wraps");
        HostCall ok = plan.begin(MethodLaunchTest::read, null, new Object[] {new int[32], 0, 30});
        assertNull(ok.refusal());
        assertEquals(10, ok.trip(0));
        HostCall refused = plan.begin(MethodLaunchTest::read, null, new Object[] {new int[32], 0, 31});
        assertNotNull(refused.refusal());
        assertTrue(refused.refusal().contains("is not run in parallel for these arguments"), refused.refusal());
    }

    @Test
    void aLoopWithNothingToCheckIsEvaluatedOnlyAtItsLaunch() throws IOException {
        MethodLaunch plan = plan("addOne");
        Random r = new Random(SEED);
        double[] a = random(r, 300);
        double[] expected = a.clone();
        addOne(expected, 200);
        Object[] args = {a, 200};
        Object[] arrays = bind(plan, args);
        HostCall call = plan.begin(MethodLaunchTest::read, null, args);
        assertNull(call.refusal());
        // a read and written array is a copy: no coverage, no check, so the call evaluates no bound before the launch
        assertEquals(-1, call.trip(0));
        plan.run(call, (k, c) -> {
            long n = plan.kernel(k).trip(c);
            assertEquals(200, n);
            double[] in = (double[]) fill(plan.kernel(k), c, arrays, args).arrays().get(0);
            for (int i = 0; i < n; i++) {
                in[i] += 1;
            }
            return new long[0];
        });
        assertArrayEquals(expected, a);
    }

    @Test
    void aFieldIsReadThroughTheReader() throws IOException {
        MethodLaunch plan = plan("fromField");
        Random r = new Random(SEED);
        for (int i = 0; i < FIELD.length; i++) {
            FIELD[i] = r.nextInt();
        }
        int[] out = new int[FIELD.length];
        Object[] args = {out, FIELD.length};
        Object[] arrays = bind(plan, args);
        assertTrue(java.util.Arrays.asList(arrays).contains(FIELD));
        HostCall call = plan.begin(MethodLaunchTest::read, null, args);
        plan.run(call, (k, c) -> {
            Filled f = fill(plan.kernel(k), c, arrays, args);
            int[] in = (int[]) f.arrays().stream().filter(a -> a == FIELD).findFirst().orElseThrow();
            for (int i = 0; i < FIELD.length; i++) {
                out[i] = in[i] * 2;
            }
            return new long[0];
        });
        int[] expected = new int[FIELD.length];
        fromField(expected, FIELD.length);
        assertArrayEquals(expected, out);
    }
}
