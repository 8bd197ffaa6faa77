package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Random;
import java.util.function.Consumer;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.Planner;
import org.acc4j.runtime.launch.Guard;
import org.acc4j.runtime.launch.Launcher;
import org.acc4j.runtime.launch.Sites;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * A call of a rewritten {@code @Kernels} method on present data, through the sites' entry points as the agent's code
 * makes them, with a fake device (the present table on {@link FakeMemory}, a runner that plays the kernel on the fake
 * device's copy): its results are plain Java's, and after warming up, 10^5 calls allocate nothing on the calling
 * thread. The same for a call with no device, which runs as plain Java.
 */
class CallAllocationTest {
    private static final int CALLS = 100_000;
    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
    private final Guard guard = new Guard(new Guard.Target() {
        @Override
        public void makeCurrent() {
        }

        @Override
        public void rebuild() {
        }

        @Override
        public void abandon() {
        }
    }, table);
    private final Sites.Parts parts = new Sites.Parts(guard, new Kernel(), table);
    private boolean device = true;
    private final Sites sites = new Sites(() -> device ? parts : null, () -> false, line -> { });
    private static final Sites.Region NO_REGION = (owner, plan, self, args) -> null;
    private static final Consumer<Object> NO_EXIT = token -> { };

    /**
     * What the launcher does for a site of {@code addOne(a, n)} or {@code scale(a, n)} on present data, the kernel
     * played on the fake device's copy: the scope adopts the array, the clause is entered, the kernel writes, the
     * clause is exited and the scope learns the array was written.
     */
    private final class Kernel implements Sites.Runner {
        private static final Object[] NO_VALUES = new Object[0];
        private int n;
        private boolean scale;
        private final Consumer<Object> body = data -> {
            double[] d = (double[]) data;
            for (int i = 0; i < n; i++) {
                d[i] = scale ? d[i] * 2.0 : d[i] + 1.0;
            }
        };

        @Override
        public Object[] runSite(int planId, MethodPlan plan, int site, Class<?> owner, Object self, Object[] values,
                                Launcher.Scope scope) {
            double[] a = null;
            for (Object v : values) {
                if (v instanceof double[] d) {
                    a = d;
                } else if (v instanceof Integer i) {
                    n = i;
                }
            }
            scale = plan.name().equals("scale");
            scope.adopt(a, "a", Clause.COPY);
            table.enter(a, Clause.COPY);
            table.markWritten(a);
            ((FakeMemory.FakeBuffer) table.lookup(a)).kernel(body);
            table.exit(a, Clause.COPY);
            scope.written(a);
            return NO_VALUES;
        }

        @Override
        public boolean raisedByKernel(Throwable t) {
            return false;
        }
    }

    private static byte[] bytes(String internalName) {
        try (InputStream in = CallAllocationTest.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    private static MethodPlan plan(String method) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes(CallFixtures.class.getName().replace('.', '/'))).accept(cn, 0);
        for (MethodNode mn : cn.methods) {
            if (mn.name.equals(method)) {
                try {
                    return Planner.plan(cn, mn, CallAllocationTest::bytes);
                } catch (org.objectweb.asm.tree.analysis.AnalyzerException e) {
                    throw new AssertionError(e);
                }
            }
        }
        throw new AssertionError("no method " + method);
    }

    /** One call as the rewritten method makes it: enter, the site with its live-in values, exit. */
    private void call(int planId, Object[] args, Object[] values) {
        Object c = sites.enter(CallFixtures.class, null, planId, args, NO_HANDLES, NO_REGION);
        Object[] out = sites.site(c, 0, values);
        if (out == null) {
            throw new AssertionError("the site ran on the host");
        }
        sites.exit(c, NO_EXIT);
    }

    private static final Object[] NO_HANDLES = new Object[0];

    private static double allocatedPerCall(Runnable calls, int count) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        calls.run();
        return (double) (mx.getCurrentThreadAllocatedBytes() - before) / count;
    }

    /** The live-in values of {@code addOne}'s site, by the plan's order of locals: the array, then the count. */
    private static Object[] values(MethodPlan p, double[] a, int n) {
        assertEquals(1, p.sites().size(), p::toString);
        return new Object[] {a, n};
    }

    @Test
    void aCallOnPresentDataComputesPlainJavasValuesAndAllocatesNothing() {
        MethodPlan p = plan("addOne");
        int id = sites.register(p);
        Random r = new Random(42);
        double[] a = new double[1024];
        for (int i = 0; i < a.length; i++) {
            a[i] = r.nextDouble();
        }
        double[] expected = a.clone();
        table.enterDynamic(a, Clause.COPYIN);
        Object[] args = {a, 1024};
        Object[] values = values(p, a, 1024);
        long timed = 0;
        // warm-up: the JIT compiles the path, as it does in a long-running program
        for (int i = 0; i < 20_000; i++) {
            call(id, args, values);
            timed++;
        }
        double perCall = allocatedPerCall(() -> {
            for (int i = 0; i < CALLS; i++) {
                call(id, args, values);
            }
        }, CALLS);
        timed += CALLS;
        assertTrue(perCall < 1, "a call on present data allocated " + perCall + " bytes on average over " + CALLS
                + " calls");
        // the device's copy went up by one per call; the host's is unchanged until it is copied back
        for (int i = 0; i < a.length; i++) {
            for (long k = 0; k < timed; k++) {
                expected[i] += 1.0;
            }
        }
        double[] device = (double[]) ((FakeMemory.FakeBuffer) table.lookup(a)).contents();
        for (int i = 0; i < a.length; i++) {
            assertEquals(expected[i], device[i], 0.0, "element " + i);
        }
        table.exitDynamic(a, Clause.COPYOUT, false);
        for (int i = 0; i < a.length; i++) {
            assertEquals(expected[i], a[i], 0.0, "element " + i + " after the copy back");
        }
        assertTrue(memory.violations().isEmpty(), memory.violations()::toString);
        long[] st = sites.stats(id);
        assertEquals(timed, st[0], "nests run on the device");
        assertEquals(0, st[1], "nests run on the host");
    }

    @Test
    void aCallWithoutADeviceAllocatesNothing() {
        MethodPlan p = plan("addOne");
        int id = sites.register(p);
        device = false;
        double[] a = new double[16];
        Object[] args = {a, 16};
        Object[] values = values(p, a, 16);
        Runnable calls = () -> {
            for (int i = 0; i < CALLS; i++) {
                Object c = sites.enter(CallFixtures.class, null, id, args, NO_HANDLES, NO_REGION);
                if (c != null || sites.site(c, 0, values) != null) {
                    throw new AssertionError("no device, yet a call object or device values");
                }
                sites.exit(c, NO_EXIT);
            }
        };
        calls.run();
        double perCall = allocatedPerCall(calls, CALLS);
        assertTrue(perCall < 1, "a call without a device allocated " + perCall + " bytes on average");
    }

    @Test
    void callObjectsAreReusedAtTheirDepthAndAFinishedCallDoesNothing() {
        MethodPlan add = plan("addOne");
        MethodPlan scale = plan("scale");
        int addId = sites.register(add);
        int scaleId = sites.register(scale);
        double[] a = {1, 2, 3, 4};
        double[] b = {5, 6, 7, 8};
        table.enterDynamic(a, Clause.COPYIN);
        table.enterDynamic(b, Clause.COPYIN);
        Object outer = sites.enter(CallFixtures.class, null, addId, new Object[] {a, 4}, NO_HANDLES, NO_REGION);
        assertNotNull(sites.site(outer, 0, new Object[] {a, 4}));
        // a call inside the call (a @Kernels method calling another) has an object of its own
        Object inner = sites.enter(CallFixtures.class, null, scaleId, new Object[] {b, 4}, NO_HANDLES, NO_REGION);
        assertNotSame(outer, inner);
        assertNotNull(sites.site(inner, 0, new Object[] {b, 4}));
        sites.exit(inner, NO_EXIT);
        // the finished inner call: its site and exit do nothing
        assertNull(sites.site(inner, 0, new Object[] {b, 4}));
        sites.exit(inner, NO_EXIT);
        Object again = sites.enter(CallFixtures.class, null, scaleId, new Object[] {b, 4}, NO_HANDLES, NO_REGION);
        assertSame(inner, again, "the next call at the inner depth reuses its object");
        assertNotNull(sites.site(again, 0, new Object[] {b, 4}));
        sites.exit(again, NO_EXIT);
        sites.exit(outer, NO_EXIT);
        Object next = sites.enter(CallFixtures.class, null, addId, new Object[] {a, 4}, NO_HANDLES, NO_REGION);
        assertSame(outer, next, "the next call at the outer depth reuses its object");
        assertNotNull(sites.site(next, 0, new Object[] {a, 4}));
        sites.exit(next, NO_EXIT);
        table.exitDynamic(a, Clause.COPYOUT, false);
        table.exitDynamic(b, Clause.COPYOUT, false);
        // a: +1 twice; b: *2 twice
        assertEquals(java.util.List.of(3.0, 4.0, 5.0, 6.0), java.util.Arrays.stream(a).boxed().toList());
        assertEquals(java.util.List.of(20.0, 24.0, 28.0, 32.0), java.util.Arrays.stream(b).boxed().toList());
        assertFalse(table.isPresent(a) || table.isPresent(b));
        assertTrue(memory.violations().isEmpty(), memory.violations()::toString);
    }
}
