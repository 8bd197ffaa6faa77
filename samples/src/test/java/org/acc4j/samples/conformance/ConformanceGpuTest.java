package org.acc4j.samples.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance sweep ({@link Sweep}) on the GPU: each method rewritten as the agent rewrites it, its nests
 * launched on the device, every element equal to plain Java's (reordered sums and the documented 1-ulp functions
 * within their bounds), Java's exceptions with Java's messages. Skips, saying why, where there is no device.
 */
@Tag("gpu")
class ConformanceGpuTest {
    static List<Sweep.Case> cases() {
        return Sweep.cases();
    }

    @BeforeAll
    static void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    /** Prints, for each {@code @Kernels} method of the fixtures, its nests run on the device and on the host. */
    @AfterAll
    static void where() {
        if (!AccRuntime.get().onDevice()) {
            return;
        }
        StringBuilder b = new StringBuilder("conformance: nests run on the device / on the host, per method\n");
        for (Class<?> k : List.of(Constructs.class, Constructs.Grid.class, Constructs.Scaled.class,
                NumericsStyle.class)) {
            for (java.lang.reflect.Method m : k.getDeclaredMethods()) {
                if (m.isAnnotationPresent(org.acc4j.Kernels.class)) {
                    long[] s = AccRuntime.get().sites().stats(AccRuntime.get().sites().find(k.getName(), m.getName()));
                    b.append("  ").append(k.getSimpleName()).append('.').append(m.getName()).append(": ").append(s[0])
                            .append(" / ").append(s[1]).append('\n');
                }
            }
        }
        System.out.print(b);
    }

    /** A nest runs on the host only for the documented run-time reasons (aliased or null arrays, unproven strides). */
    @Test
    void hostRunsOnlyWhereExpected() throws Exception {
        ConformanceRuntimeCheck.hostRunsOnlyWhereExpected();
    }

    /**
     * The data routines around calls, step by step, each step's first element printed beside plain Java's
     * expectation: Acc.copyin, a call on the present array, Acc.updateHost; Acc.create, a default(present) call,
     * Acc.updateHost, Acc.copyout.
     */
    @Test
    void dataRoutinesStepByStep() throws Exception {
        Class<?> k = Class.forName(Constructs.class.getName(), true, ConformanceRuntimeCheck.loader());
        java.lang.reflect.Method scale = Sweep.method(k, "scale");
        java.lang.reflect.Method presentOnly = Sweep.method(k, "presentOnly");
        StringBuilder b = new StringBuilder("data routines step by step (got, expected):\n");
        double[] a = {2, 3, 4};
        Acc.copyin(a);
        b.append("  copyin(a): present ").append(Acc.isPresent(a)).append('\n');
        scale.invoke(null, a, 1.5);
        b.append("  scale(a, 1.5) on present a: host a[0] ").append(a[0]).append(", 2.0 (not copied back)\n");
        Acc.updateHost(a);
        b.append("  updateHost(a): a[0] ").append(a[0]).append(", 3.0\n");
        double[] out = new double[3];
        Acc.create(out);
        presentOnly.invoke(null, a, out);
        b.append("  presentOnly(a, out) on created out: host out[0] ").append(out[0]).append(", 0.0\n");
        Acc.updateHost(out);
        b.append("  updateHost(out): out[0] ").append(out[0]).append(", 9.0\n");
        scale.invoke(null, out, 0.5);
        Acc.updateHost(out);
        b.append("  scale(out, 0.5), updateHost(out): out[0] ").append(out[0]).append(", 4.5\n");
        Acc.copyout(out);
        b.append("  copyout(out): out[0] ").append(out[0]).append(", 4.5; present ").append(Acc.isPresent(out))
                .append('\n');
        Acc.delete(a);
        double[] c = {2, 3, 4};
        Acc.copyin(c);
        scale.invoke(null, c, 1.5);
        Acc.copyout(c);
        b.append("  copyin(c), scale(c, 1.5), copyout(c): c[0] ").append(c[0]).append(", 3.0\n");
        System.out.print(b);
    }

    /**
     * The async methods that the agent's advice wraps run on the device when the advice asks the runtime (not as
     * plain Java), on their queues, with plain Java's results for every element.
     */
    @Test
    void asyncMethodsRunOnTheDevice() throws Exception {
        Class<?> k = Class.forName(Constructs.class.getName(), true, ConformanceRuntimeCheck.loader());
        java.util.Random r = new java.util.Random(Sweep.SEED);
        double[] a = Sweep.doubles(r, 1000);
        double[] b = Sweep.doubles(r, 1000);
        double[] c = Sweep.doubles(r, 1000);
        double[] pa = a.clone();
        double[] pb = b.clone();
        double[] pc = c.clone();
        Constructs.scaleAsync(pa, 3);
        Constructs.addAsync(pa, pb);
        Constructs.scaleOn(pc, 2, 3);
        Acc.copyin(a, b, c);
        assertTrue(AccRuntime.offload(k, "scaleAsync", "([DD)V", null, new Object[] {a, 3.0}), "scaleAsync on the host");
        assertTrue(AccRuntime.offload(k, "addAsync", "([D[D)V", null, new Object[] {a, b}), "addAsync on the host");
        assertTrue(AccRuntime.offload(k, "scaleOn", "([DDI)V", null, new Object[] {c, 2.0, 3}), "scaleOn on the host");
        Acc.waitAll();
        Acc.copyout(a, b, c);
        assertArrayEquals(pa, a, 0.0, "a after scaleAsync and addAsync");
        assertArrayEquals(pb, b, 0.0, "b after addAsync");
        assertArrayEquals(pc, c, 0.0, "c after scaleOn");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void deviceMatchesPlainJava(Sweep.Case c) throws Exception {
        ConformanceRuntimeCheck.check(c);
    }
}
