package org.acc4j.runtime.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.List;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.runtime.gpu.NotEqualFixtures;
import org.junit.jupiter.api.Test;

/**
 * The launcher's checks before a launch of a {@code !=} parallel loop, without a device: a call whose index reaches
 * its bound in whole steps is let through with Java's trip count; one whose index would only reach it by wrapping
 * around is sent to the host with the reason the runtime prints.
 */
class NotEqualCheckTest {
    private static OffloadedMethod offloaded(String name) throws IOException {
        return new OffloadedMethod(name, compiled(name), List.of(), List.of(), new Sources(NotEqualFixtures.class));
    }

    private static org.acc4j.compiler.CompiledMethod compiled(String name) throws IOException {
        Method method = java.util.Arrays.stream(NotEqualFixtures.class.getMethods())
                .filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
        String desc = MethodType.methodType(method.getReturnType(), method.getParameterTypes()).toMethodDescriptorString();
        byte[] bytes;
        try (InputStream in = NotEqualFixtures.class.getResourceAsStream("NotEqualFixtures.class")) {
            bytes = in.readAllBytes();
        }
        Compiler.Result r = Compiler.compile(bytes, name, desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        return ((Compiler.Offload) r).method();
    }

    private static long trips(OffloadedMethod m, Object... args) throws Launcher.HostInstead {
        return Binder.checkBeforeLaunch(m, null, args).trip(0);
    }

    @Test
    void wholeStepsAreLaunchedWithJavasTripCount() throws Exception {
        OffloadedMethod quarters = offloaded("quarters");
        assertEquals(2, trips(quarters, new int[4], Integer.MIN_VALUE, 0));
        assertEquals(0, trips(quarters, new int[4], 5, 5));
        OffloadedMethod down3 = offloaded("down3");
        assertEquals(34, trips(down3, new int[100], 100));
        OffloadedMethod nest = offloaded("nest2D");
        assertEquals(7, trips(nest, new double[7 * 5], new double[7 * 5], 7, 5));
    }

    @Test
    void aBoundReachedOnlyByWrappingAroundRunsOnTheHost() throws Exception {
        OffloadedMethod quarters = offloaded("quarters");
        Launcher.HostInstead h = assertThrows(Launcher.HostInstead.class,
                () -> trips(quarters, new int[4], 0, Integer.MIN_VALUE));
        assertTrue(h.getMessage().contains("is not run in parallel for these arguments: the loop over i at line")
                && h.getMessage().contains("from 0 in steps of 1073741824 the index does not reach -2147483648 without "
                + "wrapping around"), h::getMessage);
        OffloadedMethod up = offloaded("up");
        h = assertThrows(Launcher.HostInstead.class, () -> trips(up, new double[3], new double[3], new double[3], -1));
        assertTrue(h.getMessage().contains("does not reach -1"), h::getMessage);
    }

    @Test
    void anInnerLevelIsCheckedToo() throws Exception {
        OffloadedMethod collapsed = offloaded("collapsed");
        assertEquals(3, trips(collapsed, new float[3 * 8], new float[3 * 8], 3, 4));
        OffloadedMethod nest = offloaded("nest2D");
        // cols = -3: j from -4 upward would never reach -1 by steps of -1 without wrapping around
        Launcher.HostInstead h = assertThrows(Launcher.HostInstead.class,
                () -> trips(nest, new double[1], new double[1], 7, -3));
        assertTrue(h.getMessage().contains("the loop over j at line") && h.getMessage().contains("does not reach -1"),
                h::getMessage);
    }

    /** The GPU test's kernels, at small sizes, on the kernel interpreter against plain Java (so CI checks them too). */
    @Test
    void theGpuFixturesMatchJavaOnTheInterpreter() throws Exception {
        java.util.Random r = new java.util.Random(7);
        double[] a = r.doubles(301).toArray();
        double[] b = r.doubles(301).toArray();
        check("up", new double[301], a, b, 301);
        check("down3", r.ints(300).toArray(), 300);
        check("down3", r.ints(301).toArray(), 301);
        check("nest2D", new double[13 * 11], r.doubles(13 * 11).toArray(), 13, 11);
        float[] f = new float[9 * 2 * 7];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) r.nextGaussian();
        }
        check("collapsed", new float[9 * 2 * 7], f, 9, 7);
        check("wrapping", r.longs(40).toArray(), 40, Integer.MAX_VALUE - 20);
        check("quarters", new int[] {5, 6, 7, 8}, Integer.MIN_VALUE, 0);
    }

    private static void check(String name, Object... args) throws Exception {
        Object[] plain = args.clone();
        Object[] interp = args.clone();
        for (int i = 0; i < args.length; i++) {
            plain[i] = copy(args[i]);
            interp[i] = copy(args[i]);
        }
        java.util.Arrays.stream(NotEqualFixtures.class.getMethods()).filter(x -> x.getName().equals(name)).findFirst()
                .orElseThrow().invoke(null, plain);
        KernelInterpreter.run(compiled(name), interp, 3);
        for (int i = 0; i < args.length; i++) {
            if (plain[i] instanceof double[] d) {
                assertArrayEquals(d, (double[]) interp[i], name + " argument " + i);
            } else if (plain[i] instanceof float[] x) {
                assertArrayEquals(x, (float[]) interp[i], name + " argument " + i);
            } else if (plain[i] instanceof int[] x) {
                assertArrayEquals(x, (int[]) interp[i], name + " argument " + i);
            } else if (plain[i] instanceof long[] x) {
                assertArrayEquals(x, (long[]) interp[i], name + " argument " + i);
            }
        }
    }

    private static Object copy(Object o) {
        if (o instanceof double[] d) {
            return d.clone();
        }
        if (o instanceof float[] f) {
            return f.clone();
        }
        if (o instanceof int[] x) {
            return x.clone();
        }
        return o instanceof long[] l ? l.clone() : o;
    }
}
