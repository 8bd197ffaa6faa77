package org.acc4j.runtime.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.List;
import org.acc4j.Kernels;
import org.acc4j.compiler.Compiler;
import org.junit.jupiter.api.Test;

/**
 * The launcher's checks before a launch of a parallel loop whose step is invariant but not a constant, without a
 * device: a positive step whose index stops before Integer.MAX_VALUE is launched with Java's trip count; a step that
 * is not positive, or an index that would wrap around, sends the call to the host with the reason.
 */
class StrideCheckTest {
    /** The kernels, as a launch site outlines SciMark's FFT butterflies. */
    public static final class Fixtures {
        private Fixtures() {
        }

        @Kernels
        public static void butterfly(double[] data, int n, int dual) {
            for (int b = 0; b < n; b += 2 * dual) {
                int i = 2 * b;
                int j = 2 * (b + dual);
                double wdReal = data[j];
                double wdImag = data[j + 1];
                data[j] = data[i] - wdReal;
                data[j + 1] = data[i + 1] - wdImag;
                data[i] += wdReal;
                data[i + 1] += wdImag;
            }
        }
    }

    private static OffloadedMethod offloaded(String name) throws IOException {
        Method method = java.util.Arrays.stream(Fixtures.class.getMethods())
                .filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
        String desc = MethodType.methodType(method.getReturnType(), method.getParameterTypes()).toMethodDescriptorString();
        byte[] bytes;
        try (InputStream in = Fixtures.class.getResourceAsStream("StrideCheckTest$Fixtures.class")) {
            bytes = in.readAllBytes();
        }
        Compiler.Result r = Compiler.compile(bytes, name, desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        return new OffloadedMethod(name, ((Compiler.Offload) r).method(), List.of(), List.of(), new Sources(Fixtures.class));
    }

    private static long trips(OffloadedMethod m, Object... args) throws Launcher.HostInstead {
        return Binder.checkBeforeLaunch(m, null, args).trip(0);
    }

    @Test
    void aPositiveStepIsLaunchedWithJavasTripCount() throws Exception {
        OffloadedMethod m = offloaded("butterfly");
        assertEquals(16, trips(m, new double[64], 32, 1));
        assertEquals(1, trips(m, new double[64], 32, 16));
        assertEquals(0, trips(m, new double[64], 0, 4));
    }

    @Test
    void aStepThatIsNotPositiveRunsOnTheHost() throws Exception {
        OffloadedMethod m = offloaded("butterfly");
        for (int dual : new int[] {0, -2}) {
            Launcher.HostInstead h = assertThrows(Launcher.HostInstead.class, () -> trips(m, new double[64], 32, dual));
            assertTrue(h.getMessage().contains("is not run in parallel for these arguments: the loop over b "
                    + "(b += (2 * dual)) steps by " + 2 * dual + ", which is not positive"), h::getMessage);
        }
        // 2 * dual wraps around to Integer.MIN_VALUE
        Launcher.HostInstead h = assertThrows(Launcher.HostInstead.class,
                () -> trips(m, new double[64], 32, 1 << 30));
        assertTrue(h.getMessage().contains("steps by -2147483648"), h::getMessage);
    }

    @Test
    void anIndexThatWouldPassIntegerMaxValueRunsOnTheHost() throws Exception {
        OffloadedMethod m = offloaded("butterfly");
        Launcher.HostInstead h = assertThrows(Launcher.HostInstead.class,
                () -> trips(m, new double[64], Integer.MAX_VALUE, 1 << 29));
        assertTrue(h.getMessage().contains("passes Integer.MAX_VALUE"), h::getMessage);
    }
}
