package org.acc4j.compiler.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import org.acc4j.Kernels;
import org.acc4j.compiler.Compiler;
import org.junit.jupiter.api.Test;

/**
 * The rectangle a {@code T[][]} is written over ({@link MethodLaunch#window}): found only where the kernels never read
 * the array and one unconditional store per iteration of two unit-step loops counting up covers it, with neither its
 * offsets nor the inner loop's bounds changing with the outer loop; its rows and columns for a call's values before the
 * launch and again at the launch ({@link MethodLaunch#windowAtLaunch}). Everything else has no window, so the runtime
 * copies the array both ways.
 */
class WrittenWindowTest {

    @Kernels
    static void interior(double[][] u, double[][] next, int n, double alpha) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                next[i][j] = u[i][j] + alpha * (u[i - 1][j] + u[i + 1][j] - 2 * u[i][j]);
            }
        }
    }

    @Kernels
    static void offsets(double[][] in, double[][] out, int m, int k) {
        for (int i = 0; i < m; i++) {
            for (int j = 1; j <= k; j++) {
                out[i + 2][j - 1] = in[i][j];
            }
        }
    }

    @Kernels
    static void readsIt(double[][] a, int n) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                a[i][j] = a[i][j] * 2;
            }
        }
    }

    @Kernels
    static void conditional(double[][] u, double[][] out, int n) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (u[i][j] > 0) {
                    out[i][j] = u[i][j];
                }
            }
        }
    }

    @Kernels
    static void triangular(double[][] u, double[][] out, int n) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < i; j++) {
                out[i][j] = u[i][j];
            }
        }
    }

    @Kernels
    static void twoStores(double[][] u, double[][] out, int n) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                out[i][j] = u[i][j];
            }
        }
        for (int i = 0; i < n; i++) {
            out[i][0] = 1;
        }
    }

    @Kernels
    static void stepsOfTwo(double[][] u, double[][] out, int n) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j += 2) {
                out[i][j] = u[i][j];
            }
        }
    }

    @Kernels
    static void transposed(double[][] u, double[][] out, int n) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                out[j][i] = u[i][j];
            }
        }
    }

    private static MethodLaunch plan(String name) throws IOException {
        Method m = java.util.Arrays.stream(WrittenWindowTest.class.getDeclaredMethods())
                .filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        byte[] bytes;
        try (InputStream in = WrittenWindowTest.class.getResourceAsStream("WrittenWindowTest.class")) {
            bytes = in.readAllBytes();
        }
        Compiler.Result r = Compiler.compile(bytes, name, desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        return MethodLaunch.of(((Compiler.Offload) r).method());
    }

    private static Object read(ValueSource s, Object self, Object[] args) {
        return args[((ValueSource.Argument) s).index()];
    }

    private static int clause(MethodLaunch plan, String name) {
        for (int d = 0; d < plan.data().size(); d++) {
            if (plan.data().get(d).name().equals(name)) {
                return d;
            }
        }
        throw new AssertionError("no clause for " + name + " in " + plan.data());
    }

    /** The window of {@code array} for a call with {@code args}, before the launch and at it (they must agree). */
    private static MethodLaunch.Window window(String method, String array, Object... args) throws IOException {
        MethodLaunch plan = plan(method);
        int d = clause(plan, array);
        HostCall call = plan.begin(WrittenWindowTest::read, null, args);
        MethodLaunch.Window before = plan.window(d, call);
        MethodLaunch.Window[] atLaunch = {null};
        plan.run(call, (k, c) -> {
            if (plan.windowRegion(d) == k) {
                atLaunch[0] = plan.windowAtLaunch(d, c);
            }
            return new long[0];
        });
        assertEquals(before, atLaunch[0], method + ": the window before the launch and at it");
        return before;
    }

    @Test
    void theHeatStepWritesItsInterior() throws IOException {
        MethodLaunch plan = plan("interior");
        int d = clause(plan, "next");
        assertEquals(DataUse.Kind.COPYOUT, plan.data().get(d).kind(), plan.data()::toString);
        assertEquals(0, plan.windowRegion(d));
        assertEquals(-1, plan.windowRegion(clause(plan, "u")), "u is read");
        double[][] u = new double[9][9];
        double[][] next = new double[9][9];
        HostCall call = plan.begin(WrittenWindowTest::read, null, new Object[] {u, next, 9, 0.2});
        assertEquals(DataUse.Kind.COPY, plan.clause(d, next, call), "both ways unless the runtime takes the window");
        assertEquals(new MethodLaunch.Window(1, 8, 1, 8), window("interior", "next", u, next, 9, 0.2));
        assertEquals(new MethodLaunch.Window(0, 0, 0, 0), window("interior", "next", u, next, 2, 0.2),
                "no iteration: nothing written");
    }

    @Test
    void offsetsAndInclusiveBoundsMoveTheRectangle() throws IOException {
        assertEquals(new MethodLaunch.Window(2, 7, 0, 4),
                window("offsets", "out", new double[5][5], new double[8][8], 5, 4));
    }

    @Test
    void anythingElseHasNoWindow() throws IOException {
        double[][] a = new double[4][4];
        double[][] b = new double[4][4];
        assertEquals(-1, plan("readsIt").windowRegion(0), "read and written");
        for (String m : new String[] {"conditional", "triangular", "twoStores", "stepsOfTwo", "transposed"}) {
            MethodLaunch plan = plan(m);
            int d = clause(plan, "out");
            assertEquals(-1, plan.windowRegion(d), m);
            assertNull(plan.window(d, plan.begin(WrittenWindowTest::read, null, new Object[] {a, b, 4})), m);
        }
    }

    @Test
    void subscriptsOutsideIntAreLeftToThePlainClause() throws IOException {
        MethodLaunch plan = plan("offsets");
        int d = clause(plan, "out");
        HostCall call = plan.begin(WrittenWindowTest::read, null,
                new Object[] {new double[1][1], new double[1][1], Integer.MAX_VALUE - 1, 3});
        assertNull(plan.window(d, call));
        assertNotNull(plan.window(d, plan.begin(WrittenWindowTest::read, null,
                new Object[] {new double[1][1], new double[1][1], 1, 1})));
    }
}
