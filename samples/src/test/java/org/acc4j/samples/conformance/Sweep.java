package org.acc4j.samples.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.acc4j.compiler.site.ClassRewriter;
import org.acc4j.compiler.site.MethodPlan;

/**
 * The conformance sweep: each case calls one method of {@link Constructs} or {@link NumericsStyle} on inputs drawn
 * from a fixed seed, once as plain Java (the classes as javac wrote them) and once rewritten into launch sites as
 * the agent rewrites them, and compares every element of every argument array (rows of two-dimensional ones
 * included) and the returned value. A case that throws must throw the same exception with the same message.
 */
public final class Sweep {
    static final long SEED = 20261124L;

    /**
     * How a case's floating-point results may differ from Java's: not at all; by the last bits of the documented
     * 1-ulp functions ({@code exp}, {@code log}, {@code pow}, {@code sin}, {@code cos}, {@code tan}, {@code tanh});
     * or within a reordered sum's bound.
     */
    enum Tolerance { EXACT, ULPS, REORDERED }

    /**
     * A case.
     *
     * @param name the case's name
     * @param owner the class whose static method it calls
     * @param method the method's name
     * @param args the arguments, from a random source seeded with {@link #SEED}
     * @param tolerance how far floating-point results may be from Java's
     */
    public record Case(String name, Class<?> owner, String method, Function<Random, Object[]> args,
                       Tolerance tolerance) {
        @Override
        public String toString() {
            return name;
        }

        /** Whether the case is too large for the kernel interpreter (which runs every thread one by one). */
        boolean large() {
            return name.endsWith(" large");
        }

        Object[] freshArgs() {
            return args.apply(new Random(SEED ^ name.hashCode()));
        }
    }

    private Sweep() {
    }

    static Case exact(String method, Class<?> owner, Function<Random, Object[]> args) {
        return new Case(owner.getSimpleName() + "." + method, owner, method, args, Tolerance.EXACT);
    }

    /** A case with a size suffix: {@code large} cases run on the runtime's targets only (not interpreted). */
    static Case exact(String method, Class<?> owner, String suffix, Function<Random, Object[]> args) {
        return new Case(owner.getSimpleName() + "." + method + " " + suffix, owner, method, args, Tolerance.EXACT);
    }

    static Case reordered(String method, Class<?> owner, String suffix, Function<Random, Object[]> args) {
        return new Case(owner.getSimpleName() + "." + method + " " + suffix, owner, method, args,
                Tolerance.REORDERED);
    }

    static Case reordered(String method, Class<?> owner, Function<Random, Object[]> args) {
        return new Case(owner.getSimpleName() + "." + method, owner, method, args, Tolerance.REORDERED);
    }

    static double[] doubles(Random r, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble();
        }
        return a;
    }

    static float[] floats(Random r, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextFloat();
        }
        return a;
    }

    static int[] ints(Random r, int n, int bound) {
        return r.ints(n, 0, bound).toArray();
    }

    static double[][] grid(Random r, int n, int m) {
        double[][] g = new double[n][];
        for (int i = 0; i < n; i++) {
            g[i] = doubles(r, m);
        }
        return g;
    }

    static Object[] of(Object... values) {
        return values;
    }

    /** Every case, in the order of the fixtures. */
    public static List<Case> cases() {
        Class<?> c = Constructs.class;
        Class<?> s = NumericsStyle.class;
        List<Case> l = new ArrayList<>();
        l.add(exact("saxpy", c, r -> of(2.5f, floats(r, 1003), floats(r, 1003))));
        l.add(exact("fieldBound", c, r -> of(doubles(r, 1000), new double[1000])));
        l.add(exact("casts", c, r -> of(doubles(r, 777), new float[777], new int[777], new long[777], 777)));
        l.add(exact("integers", c, r -> of(r.ints(901).toArray(), r.longs(901).toArray(), new int[901], 7)));
        l.add(new Case("Constructs.mathLibrary", c, "mathLibrary", r -> of(doubles(r, 500), new double[1000], 500),
                Tolerance.ULPS));
        l.add(exact("mathFloat", c, r -> of(floats(r, 513), new float[513])));
        l.add(exact("floorMod", c, r -> of(doubles(r, 300), new double[300], 300)));
        l.add(exact("floorModLong", c, r -> {
            long[] a = r.longs(400, -1000, 1000).toArray();
            long[] b = r.longs(400, -30, 30).toArray();
            for (int i = 0; i < b.length; i++) {
                b[i] = b[i] == 0 ? 7 : b[i];
            }
            return of(a, b, new long[400]);
        }));
        l.add(new Case("Constructs.floorModLong by zero", c, "floorModLong", r -> {
            long[] b = r.longs(400, 1, 30).toArray();
            b[399] = 0;
            return of(r.longs(400, -1000, 1000).toArray(), b, new long[400]);
        }, Tolerance.EXACT));
        l.add(exact("classify", c, r -> {
            double[] a = doubles(r, 400);
            float[] f = floats(r, 400);
            double[] special = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MAX_VALUE,
                -Double.MAX_VALUE, Double.MIN_VALUE, -0.0, 1e308 * 10};
            for (int i = 0; i < special.length; i++) {
                a[7 * i] = special[i];
                f[7 * i + 1] = (float) special[i];
                f[7 * i + 2] = (float) (special[i] * 1e-300);
            }
            return of(a, f, new double[400], new int[400]);
        }));
        l.add(exact("narrowTypes", c, r -> {
            int n = 611;
            byte[] b = new byte[n];
            r.nextBytes(b);
            short[] sh = new short[n];
            char[] ch = new char[n];
            boolean[] z = new boolean[n];
            for (int i = 0; i < n; i++) {
                sh[i] = (short) r.nextInt();
                ch[i] = (char) r.nextInt();
                z[i] = r.nextBoolean();
            }
            return of(b, sh, ch, z, new int[n]);
        }));
        l.add(exact("longIndex", c, r -> of(doubles(r, 700), new double[700], 700L)));
        l.add(exact("longIndexIndependent", c, r -> of(doubles(r, 700), new double[700], 700L)));
        l.add(exact("longIndexSum", c, r -> of(100_003L)));
        l.add(exact("negativeStep", c, r -> of(doubles(r, 700), new double[700], 700)));
        l.add(exact("stepTwo", c, r -> of(doubles(r, 702), new double[702], 702)));
        l.add(exact("stepThreeDown", c, r -> of(ints(r, 800, 1000), 800)));
        l.add(exact("nestedSequential", c, r -> of(doubles(r, 60 * 9), new double[60], 60, 9)));
        l.add(exact("whileLoop", c, r -> {
            double[] cr = doubles(r, 400);
            double[] ci = doubles(r, 400);
            for (int i = 0; i < 400; i++) {
                cr[i] = cr[i] * 3 - 2;
                ci[i] = ci[i] * 3 - 1.5;
            }
            return of(cr, ci, new int[400], 200);
        }));
        l.add(exact("doLoop", c, r -> of(r.ints(500).toArray(), new int[500])));
        l.add(exact("breakContinue", c, r -> of(doubles(r, 100 * 20), new int[100], 100, 20)));
        l.add(exact("whileTrue", c, r -> of(ints(r, 300, 1 << 20), new int[300])));
        l.add(exact("whileAsNest", c, r -> of(doubles(r, 555), new double[555], 555)));
        l.add(exact("inclusiveTernary", c, r -> {
            byte[] bytes = new byte[400];
            r.nextBytes(bytes);
            short[] sh = new short[400];
            for (int i = 0; i < sh.length; i++) {
                sh[i] = (short) r.nextInt();
            }
            return of(doubles(r, 400), new double[400], sh, bytes, 399);
        }));
        l.add(exact("labelledContinue", c, r -> of(ints(r, 50 * 12, 12), new int[50], 50, 12)));
        l.add(exact("saturatingCasts", c, r -> {
            double[] d = doubles(r, 300);
            for (int i = 0; i < d.length; i++) {
                d[i] = (d[i] - 0.5) * Math.pow(10, i % 25);
            }
            d[0] = Double.NaN;
            d[1] = Double.POSITIVE_INFINITY;
            d[2] = Double.NEGATIVE_INFINITY;
            d[3] = -0.0;
            d[4] = 1e300;
            return of(d, new int[300], new long[300], new float[300]);
        }));
        l.add(exact("wrappingSum", c, r -> of(r.ints(5000).toArray())));
        l.add(exact("indexAfterLoop", c, r -> of(doubles(r, 300), new double[300], 300)));
        l.add(exact("mathRound", c, r -> of(doubles(r, 300), new long[300])));
        l.add(exact("nullRow", c, r -> new Object[] {grid(r, 10, 20)}));
        l.add(exact("switches", c, r -> {
            int[] op = r.ints(600, -8, 8).toArray();
            return of(op, doubles(r, 600), new double[600]);
        }));
        l.add(exact("gangVector", c, r -> of(doubles(r, 1000), new double[1000], 1000)));
        l.add(exact("gangWorkerVector", c, r -> of(doubles(r, 70 * 45), new double[70 * 45], 70, 45)));
        l.add(exact("collapse2", c, r -> of(grid(r, 33, 41), new double[33][41], 33, 41)));
        l.add(exact("collapse3", c, r -> of(floats(r, 9 * 10 * 11), new float[9 * 10 * 11], 9, 10, 11)));
        l.add(exact("independentScatter", c, r -> {
            int n = 500;
            int[] perm = new int[n];
            for (int i = 0; i < n; i++) {
                perm[i] = i;
            }
            for (int i = n - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            return of(doubles(r, n), perm, new double[n]);
        }));
        l.add(exact("seqRecurrence", c, r -> of(doubles(r, 300), 300)));
        l.add(reordered("reductionClause", c, r -> of(doubles(r, 3001), 3001)));
        l.add(reordered("rowSumsVector", c, r -> of(doubles(r, 40 * 77), new double[40], 40, 77)));
        l.add(exact("sumInt", c, r -> of(r.ints(4001).toArray())));
        l.add(exact("sumLong", c, r -> of(r.ints(4001).toArray())));
        l.add(reordered("dot", c, r -> of(doubles(r, 4001), doubles(r, 4001))));
        l.add(reordered("sumFloat", c, r -> of(floats(r, 4001))));
        l.add(reordered("product", c, r -> of(doubles(r, 2001))));
        l.add(exact("intProductMinusAndBits", c, r -> of(r.ints(999).toArray(), new long[4])));
        l.add(exact("maxMin", c, r -> of(doubles(r, 2049), new double[1])));
        l.add(exact("maxMinInt", c, r -> of(r.ints(2049).toArray(), r.longs(2049).toArray(), new int[1])));
        l.add(exact("ifMax", c, r -> {
            double[] a = doubles(r, 3000);
            for (int i = 0; i < a.length; i++) {
                a[i] -= 0.5;
            }
            return of(a);
        }));
        l.add(exact("ternaryMinFloat", c, r -> of(floats(r, 1500))));
        l.add(exact("allAny", c, r -> of(doubles(r, 1000), new boolean[1])));
        l.add(reordered("meanCentre", c, r -> of(doubles(r, 1000), new double[1000])));
        l.add(exact("arrayReduction", c, r -> of(ints(r, 2000, 1000), new int[8], new long[2],
                new double[] {Double.NEGATIVE_INFINITY})));
        l.add(reordered("arrayFloatSum", c, r -> of(doubles(r, 2000), new double[2])));
        l.add(exact("scanInclusiveInt", c, r -> of(ints(r, 10000, 100), new int[10000], 10000)));
        l.add(exact("scanExclusiveLong", c, r -> of(r.longs(9000).toArray(), new long[9000], 9000)));
        l.add(exact("scanMaxDouble", c, r -> of(doubles(r, 9000), new double[9000], 9000)));
        l.add(reordered("scanRelaxedDouble", c, r -> of(doubles(r, 9000), new double[9000], 9000)));
        l.add(exact("privateArray", c, r -> of(doubles(r, 4 * 300), new double[300], 300)));
        l.add(exact("privateHistogram", c, r -> of(r.ints(300).toArray(), new int[300], 300)));
        l.add(exact("jacobi2d", c, r -> of(grid(r, 40, 40), new double[40][40], 40)));
        l.add(exact("float2d", c, r -> {
            float[][] a = new float[25][];
            for (int i = 0; i < a.length; i++) {
                a[i] = floats(r, 31);
            }
            return of(a, new float[25][31]);
        }));
        l.add(exact("jaggedRowSums", c, r -> {
            int[][] rows = new int[50][];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = r.ints(r.nextInt(60)).toArray();
            }
            return of(rows, new long[50]);
        }));
        l.add(exact("matmul2d", c, r -> of(grid(r, 37, 37), grid(r, 37, 37), new double[37][37], 37)));
        l.add(exact("transpose2d", c, r -> {
            long[][] in = new long[29][];
            for (int i = 0; i < in.length; i++) {
                in[i] = r.longs(35).toArray();
            }
            return of(in, new long[35][29], 29, 35);
        }));
        l.add(exact("staticFieldCase", c, r -> of(doubles(r, 1000))));
        l.add(exact("helpers", c, r -> of(doubles(r, 800), new double[800])));
        l.add(exact("instanceFields", c, r -> of(doubles(r, 600), 5)));
        l.add(exact("inheritedFields", c, r -> of(doubles(r, 600), 1.25)));
        l.add(exact("twoSizesAndAliases", c, r -> of(doubles(r, 300), doubles(r, 300))));
        l.add(exact("aliasedShift", c, r -> of(doubles(r, 300))));
        l.add(exact("outOfBounds", c, r -> of(doubles(r, 100), new double[200], 200)));
        l.add(exact("indirectOutOfBounds", c, r -> {
            int[] idx = ints(r, 300, 100);
            idx[177] = 100;
            return of(doubles(r, 100), idx, new double[300]);
        }));
        l.add(exact("divideByZero", c, r -> {
            int[] b = ints(r, 300, 10);
            for (int i = 0; i < b.length; i++) {
                b[i]++;
            }
            b[211] = 0;
            return of(r.ints(300).toArray(), b, new int[300]);
        }));
        l.add(exact("nullArgument", c, r -> of(new double[10])));
        l.add(exact("throwInNest", c, r -> of(doubles(r, 300), new double[300])));
        l.add(new Case("Constructs.throwInNest negative", c, "throwInNest", r -> {
            double[] a = doubles(r, 300);
            a[123] = -1;
            return of(a, new double[300]);
        }, Tolerance.EXACT));
        l.add(exact("dataClausesCase", c, r -> of(doubles(r, 500))));
        l.add(exact("dataRoutines", c, r -> of(doubles(r, 500), doubles(r, 500))));
        l.add(exact("asyncQueues", c, r -> of(doubles(r, 500), doubles(r, 500))));
        l.add(exact("presentData", c, r -> of(doubles(r, 500))));
        l.add(exact("ifField", c, r -> of(doubles(r, 500))));
        l.add(exact("moreAtomics", c, r -> of(ints(r, 3000, 1 << 20), new int[] {1 << 30, 1 << 30, 1 << 30, 1 << 30},
                new long[] {0, -1}, new double[] {1e300}, new int[97])));
        l.add(reordered("incrementsAuto", c, r -> of(ints(r, 2000, 300), ints(r, 2000, 300), floats(r, 2000),
                new float[300])));
        l.add(exact("twoGrids", c, r -> of(doubles(r, 600), doubles(r, 900))));
        l.add(exact("asyncParamAndUpdates", c, r -> of(doubles(r, 700))));
        l.add(exact("exchangeAndVolatile", c, r -> of(ints(r, 2000, 1000), new long[] {0, Long.MIN_VALUE},
                new double[17])));
        l.add(exact("manyOperands", c, r -> {
            int n = 777;
            return of(doubles(r, n), doubles(r, n), doubles(r, n), doubles(r, n), floats(r, n), floats(r, n),
                    r.ints(n).toArray(), r.longs(n).toArray(), new double[n], new double[n], new float[n],
                    new long[n], 1.5, 2.5f, 3, 5L);
        }));
        l.add(exact("scanInclusiveInt", c, "large", r -> of(ints(r, 1 << 20, 1000), new int[1 << 20], 1 << 20)));
        l.add(exact("scanMaxDouble", c, "large", r -> of(doubles(r, 1 << 20), new double[1 << 20], 1 << 20)));
        l.add(reordered("dot", c, "large", r -> of(doubles(r, 1 << 21), doubles(r, 1 << 21))));
        l.add(exact("sumLong", c, "large", r -> of(r.ints(1 << 21).toArray())));
        l.add(exact("saxpy", c, "large", r -> of(2.5f, floats(r, 1 << 21), floats(r, 1 << 21))));
        l.add(exact("matmul2d", c, "large", r -> of(grid(r, 200, 200), grid(r, 200, 200), new double[200][200], 200)));
        l.add(exact("atomics", c, r -> of(ints(r, 3000, 1000), new int[13], new long[1], new double[1])));
        l.add(exact("incrementsAtomic", c, r -> of(ints(r, 3000, 64), new int[64])));
        l.add(reordered("incrementsColour", c, r -> of(ints(r, 2000, 300), ints(r, 2000, 300), doubles(r, 2000),
                new double[300])));
        l.add(exact("serialPrefix", c, r -> of(doubles(r, 500), 500)));
        l.add(exact("ifClause", c, r -> of(doubles(r, 500), new double[500], true)));
        l.add(exact("sor", s, r -> of(1.25, grid(r, 30, 30), 3)));
        l.add(exact("sorRedBlack", s, r -> of(1.25, grid(r, 30, 33), 3)));
        l.add(exact("sorRedBlackMarked", s, r -> of(1.25, grid(r, 30, 33), 3)));
        l.add(exact("lu", s, r -> of(grid(r, 40, 40), new int[40])));
        l.add(exact("monteCarlo", s, r -> of(100_000, 17L)));
        l.add(exact("sparseMatmult", s, r -> {
            int n = 300;
            int nr = 7;
            int[] row = new int[n + 1];
            int[] col = new int[n * nr];
            for (int i = 0; i < n; i++) {
                row[i + 1] = row[i] + nr;
                for (int k = 0; k < nr; k++) {
                    col[i * nr + k] = r.nextInt(n);
                }
            }
            return of(new double[n], doubles(r, n * nr), row, col, doubles(r, n), 3);
        }));
        l.add(new Case("NumericsStyle.series", s, "series", r -> of(new double[2][40], 40, 200), Tolerance.ULPS));
        l.add(exact("cipher", s, r -> {
            byte[] text = new byte[8 * 200];
            r.nextBytes(text);
            return of(text, new byte[text.length], ints(r, 52, 1 << 16));
        }));
        l.add(exact("dgefa", s, r -> of(grid(r, 30, 30), 30, new int[30])));
        l.add(exact("dgefaInline", s, r -> of(grid(r, 30, 30), 30, new int[30])));
        l.add(exact("daxpyColumns", s, r -> of(0.75, doubles(r, 31 * 17), doubles(r, 31 * 17), 31, 17)));
        return l;
    }

    // ------------------------------------------------------------------ running and comparing

    /** What a call gave: its arguments afterwards and its value, or what it threw. */
    record Outcome(Object[] args, Object value, Throwable thrown) {
    }

    static Method method(Class<?> owner, String name) {
        for (Method m : owner.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                m.setAccessible(true);
                return m;
            }
        }
        throw new IllegalArgumentException("no method " + name + " in " + owner.getName());
    }

    static Outcome call(Class<?> owner, String name, Object[] args) {
        try {
            return new Outcome(args, method(owner, name).invoke(null, args), null);
        } catch (InvocationTargetException e) {
            return new Outcome(args, null, e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The {@code Acc} routines' semantics without the agent (data always present, nothing moves). */
    static final org.acc4j.spi.Backend HOST = hostBackend();

    private static org.acc4j.spi.Backend hostBackend() {
        try {
            java.lang.reflect.Constructor<?> k = Class.forName("org.acc4j.Acc$HostBackend").getDeclaredConstructor();
            k.setAccessible(true);
            return (org.acc4j.spi.Backend) k.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Resets the fixtures' static fields, which some cases change. */
    static void reset(ClassLoader loader) throws Exception {
        Class<?> c = Class.forName(Constructs.class.getName(), true, loader);
        java.lang.reflect.Field f = c.getDeclaredField("field");
        f.setAccessible(true);
        double[] field = new double[1000];
        Random r = new Random(SEED);
        for (int i = 0; i < field.length; i++) {
            field[i] = r.nextDouble();
        }
        f.set(null, field);
    }

    /**
     * Runs {@code c} plainly and through {@code loader}'s rewritten classes; null when every element agrees, else
     * the first difference.
     */
    public static String check(Case c, ClassLoader loader) throws Exception {
        return check(c, loader, false);
    }

    /**
     * As {@link #check(Case, ClassLoader)}; with {@code anyIndex}, an {@code ArrayIndexOutOfBoundsException} may name
     * another index out of bounds for the same length than Java's first, as a GPU kernel whose threads fail at once
     * may (the guide says so).
     */
    public static String check(Case c, ClassLoader loader, boolean anyIndex) throws Exception {
        reset(Sweep.class.getClassLoader());
        // plain Java: the Acc routines with their host semantics, whatever runtime the test installed
        org.acc4j.spi.Backend installed = org.acc4j.Acc.install(HOST);
        Outcome expected;
        try {
            expected = call(c.owner(), c.method(), c.freshArgs());
        } finally {
            org.acc4j.Acc.install(installed);
        }
        reset(loader);
        Outcome got = call(Class.forName(c.owner().getName(), true, loader), c.method(), c.freshArgs());
        if (expected.thrown() != null || got.thrown() != null) {
            String e = describe(expected.thrown());
            String g = describe(got.thrown());
            if (anyIndex && expected.thrown() instanceof ArrayIndexOutOfBoundsException
                    && got.thrown() instanceof ArrayIndexOutOfBoundsException) {
                e = e.replaceFirst("Index -?\\d+ out", "Index _ out");
                g = g.replaceFirst("Index -?\\d+ out", "Index _ out");
            }
            return e.equals(g) ? null : c.name() + ": plain Java " + e + ", rewritten " + g;
        }
        String d = difference("the value", expected.value(), got.value(), c.tolerance());
        for (int i = 0; d == null && i < expected.args().length; i++) {
            d = difference("argument " + i, expected.args()[i], got.args()[i], c.tolerance());
        }
        return d == null ? null : c.name() + ": " + d;
    }

    static String describe(Throwable t) {
        return t == null ? "returned" : "threw " + t.getClass().getName() + ": " + t.getMessage();
    }

    /** The first difference between two values (arrays element by element, rows included), or null. */
    static String difference(String where, Object e, Object g, Tolerance tol) {
        if (e == null || g == null) {
            return e == g ? null : where + ": " + e + " against " + g;
        }
        if (e.getClass().isArray()) {
            if (!g.getClass().isArray() || e.getClass() != g.getClass()) {
                return where + ": " + e.getClass() + " against " + g.getClass();
            }
            int n = Array.getLength(e);
            if (n != Array.getLength(g)) {
                return where + ": length " + n + " against " + Array.getLength(g);
            }
            for (int i = 0; i < n; i++) {
                String d = difference(where + "[" + i + "]", Array.get(e, i), Array.get(g, i), tol);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (e instanceof Double x && g instanceof Double y) {
            return same(x, y, tol, 1e-12) ? null : where + ": " + x + " against " + y;
        }
        if (e instanceof Float x && g instanceof Float y) {
            return same(x, y, tol, 1e-5) ? null : where + ": " + x + " against " + y;
        }
        return e.equals(g) ? null : where + ": " + e + " against " + g;
    }

    private static boolean same(double x, double y, Tolerance tol, double relative) {
        if (Double.compare(x, y) == 0) {
            return true;
        }
        return tol != Tolerance.EXACT && Math.abs(x - y) <= relative * Math.max(1, Math.abs(x));
    }

    // ------------------------------------------------------------------ the rewritten classes

    static byte[] bytes(String internalName) {
        try (InputStream in = Sweep.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    /** Advice around whole methods, given a class's binary name and its class file; null when nothing changes. */
    interface Advice {
        byte[] advise(String name, byte[] classFile);
    }

    /**
     * The fixtures' classes rewritten into launch sites that call {@code runtime}, in a loader of their own; then,
     * where an advice step is given, advised around whole methods as the agent advises them (its async
     * {@code @Kernels} methods and its {@code @Data} methods).
     */
    public static final class Rewritten extends ClassLoader {
        private final java.util.function.ToIntFunction<MethodPlan> register;
        private final String runtime;
        /** The advice step, or null for none. */
        private final Advice advice;
        final List<String> warnings = new ArrayList<>();
        /** The class files it defined, by binary name. */
        final java.util.Map<String, byte[]> defined = new java.util.concurrent.ConcurrentHashMap<>();

        public Rewritten(java.util.function.ToIntFunction<MethodPlan> register, String runtime) {
            this(register, runtime, null);
        }

        Rewritten(java.util.function.ToIntFunction<MethodPlan> register, String runtime, Advice advice) {
            super(Sweep.class.getClassLoader());
            this.register = register;
            this.runtime = runtime;
            this.advice = advice;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (!name.startsWith(Constructs.class.getName()) && !name.startsWith(NumericsStyle.class.getName())) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    byte[] original = bytes(name.replace('.', '/'));
                    byte[] b;
                    try {
                        b = ClassRewriter.rewrite(original, Sweep::bytes, register::applyAsInt, runtime,
                                warnings::add);
                        b = b == null ? original : b;
                        byte[] advised = advice == null ? null : advice.advise(name, b);
                        b = advised == null ? b : advised;
                    } catch (Exception e) {
                        throw new ClassNotFoundException(name, e);
                    }
                    defined.put(name, b);
                    c = defineClass(name, b, 0, b.length);
                }
                return c;
            }
        }
    }

    /**
     * The fixtures rewritten into sites that the kernel interpreter runs ({@link org.acc4j.compiler.site.TestRuntime},
     * every thread of a kernel's mapping, with its race check), declined where the runtime would run the nest on
     * the host: the device path without a device.
     */
    static Rewritten interpreting() {
        org.acc4j.compiler.site.TestRuntime.interpretAsTheRuntime();
        return new Rewritten(org.acc4j.compiler.site.TestRuntime::register, org.acc4j.compiler.site.TestRuntime.NAME);
    }

    /** Runs the sweep through the kernel interpreter (given {@code runtime}, the runtime) and prints each outcome. */
    public static void main(String[] args) throws Exception {
        boolean runtime = args.length > 0 && args[0].equals("runtime");
        ClassLoader loader = runtime ? ConformanceRuntimeCheck.loader() : interpreting();
        int failed = 0;
        for (Case c : cases()) {
            if (args.length > 1 && !c.name().contains(args[1]) || !runtime && c.large()) {
                continue;
            }
            String d;
            try {
                d = check(c, loader);
            } catch (Throwable t) {
                d = c.name() + ": the harness threw " + t;
                t.printStackTrace();
            }
            if (d != null) {
                failed++;
                System.out.println("FAIL " + d);
            } else {
                System.out.println("ok   " + c.name());
            }
        }
        System.out.println("declined: " + org.acc4j.compiler.site.TestRuntime.declined());
        System.out.println(failed + " failed");
    }
}
