package org.acc4j.samples;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;

/**
 * Every {@code @Kernels} method of the loop-nest samples, for tests: its plain-Java reference and a factory of
 * small seeded arguments. Calling the kernel on {@link Entry#args} and the reference on a {@link #deepCopy} of
 * them must leave every array argument with the same contents, bit for bit.
 *
 * <p>Names are {@code sample.form.variant}: the form is {@code flat} ({@code double[]} indexed {@code a[i*n + j]})
 * or {@code 2d} ({@code double[][]}); the variant is {@code default} (no {@code @Loop}), a mapping of the OpenUH
 * paper ({@code map2_1} ... {@code map2_4}, {@code map3_1} ... {@code map3_3}) or, for copy and transpose, a
 * variant of Chatain's thesis (see {@link Transpose}).
 *
 * <p>Sizes at scale s: 2D grids 37s × 41s; DGEMM (37s × 23s) · (23s × 41s); copy and transpose 37s × 41s; 3D
 * grids 13s × 11s × 9s (nx × ny × nz). Inputs are uniform in [-1, 1), scalar coefficients too; outputs start at
 * zero, so that a kernel that writes nothing leaves them all zero while the reference does not.
 */
public final class Catalog {
    /** Seeded arguments of a kernel at a scale (1 is the smallest). */
    @FunctionalInterface
    public interface Args {
        Object[] create(long seed, int scale);
    }

    /**
     * One kernel method.
     *
     * @param name      {@code sample.form.variant}
     * @param owner     the sample class declaring both methods
     * @param kernel    the {@code @Kernels} method's name (unique in {@code owner})
     * @param reference the plain method's name, with the same parameters
     * @param outputs   positions of the arguments that the kernel writes
     * @param factory   makes the arguments
     */
    public record Entry(String name, Class<?> owner, String kernel, String reference, List<Integer> outputs,
                        Args factory) {
        /** Fresh arguments: seeded inputs and zeroed outputs. */
        public Object[] args(long seed, int scale) {
            if (scale < 1) {
                throw new IllegalArgumentException("scale must be at least 1, got " + scale);
            }
            return factory.create(seed, scale);
        }

        /** The {@code @Kernels} method, accessible. */
        public Method kernelMethod() {
            return method(owner, kernel);
        }

        /** The plain reference method, accessible. */
        public Method referenceMethod() {
            return method(owner, reference);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static final String[] MAP2 = {"", "Map2_1", "Map2_2", "Map2_3", "Map2_4"};
    private static final String[] MAP3 = {"", "Map3_1", "Map3_2", "Map3_3"};
    private static final List<Entry> ENTRIES = List.copyOf(build());

    private Catalog() {
    }

    /** All entries, in a fixed order. */
    public static List<Entry> entries() {
        return ENTRIES;
    }

    /** The entry of that name; an {@link IllegalArgumentException} if there is none. */
    public static Entry get(String name) {
        for (Entry e : ENTRIES) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("no catalogue entry " + name);
    }

    /** A copy sharing no array with {@code args}: arrays are cloned, arrays of arrays row by row. */
    public static Object[] deepCopy(Object[] args) {
        Object[] copy = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            copy[i] = copyValue(args[i]);
        }
        return copy;
    }

    /**
     * Where two argument lists differ, comparing arrays element by element and bit for bit as
     * {@link Double#doubleToLongBits} does ({@code -0.0 != 0.0}, all NaNs alike); null where they are the same.
     */
    public static String firstDifference(Object[] expected, Object[] actual) {
        if (expected.length != actual.length) {
            return "argument count " + expected.length + " != " + actual.length;
        }
        for (int i = 0; i < expected.length; i++) {
            String d = difference("argument " + i, expected[i], actual[i]);
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    /** Whether any element of the entry's output arguments is not zero. */
    public static boolean anyOutputNonZero(Entry entry, Object[] args) {
        for (int i : entry.outputs()) {
            if (nonZero(args[i])) {
                return true;
            }
        }
        return false;
    }

    private static List<Entry> build() {
        List<Entry> list = new ArrayList<>();
        map2(list, "jacobi", Jacobi.class, "sweep", List.of(1), Catalog::jacobiFlat, Catalog::jacobi2d);
        map2(list, "dgemm", Dgemm.class, "multiply", List.of(2), Catalog::dgemmFlat, Catalog::dgemm2d);
        map2(list, "gaussblur", Gaussblur.class, "blur", List.of(1), Catalog::blurFlat, Catalog::blur2d);
        String[] copyFlat = {"1d_naive", "copy1dNaive", "1d_par", "copy1dPar", "naive", "copyNaive", "par", "copyPar",
            "inner", "copyInner"};
        for (int v = 0; v < copyFlat.length; v += 2) {
            list.add(new Entry("copy.flat." + copyFlat[v], Transpose.class, copyFlat[v + 1], "copyPlain", List.of(1),
                    (seed, s) -> matrixFlat(seed, 37 * s, 41 * s)));
        }
        String[] copy2d = {"naive", "copy2dNaive", "par", "copy2dPar", "inner", "copy2dInner"};
        for (int v = 0; v < copy2d.length; v += 2) {
            list.add(new Entry("copy.2d." + copy2d[v], Transpose.class, copy2d[v + 1], "copy2dPlain", List.of(1),
                    (seed, s) -> matrix2d(seed, 37 * s, 41 * s, false)));
        }
        String[] transpose = {"naive", "Naive", "reads_coalesced", "ReadsCoalesced", "writes_coalesced",
            "WritesCoalesced", "par", "Par", "inner", "Inner"};
        for (int v = 0; v < transpose.length; v += 2) {
            list.add(new Entry("transpose.flat." + transpose[v], Transpose.class, "transpose" + transpose[v + 1],
                    "transposePlain", List.of(1), (seed, s) -> matrixFlat(seed, 37 * s, 41 * s)));
        }
        for (int v = 0; v < transpose.length; v += 2) {
            list.add(new Entry("transpose.2d." + transpose[v], Transpose.class, "transpose2d" + transpose[v + 1],
                    "transpose2dPlain", List.of(1), (seed, s) -> matrix2d(seed, 37 * s, 41 * s, true)));
        }
        map3(list, "stencil", Stencil.class, "stencil", List.of(1), (seed, s) -> grid(seed, s, 1, 2, false, false),
                (seed, s) -> grid(seed, s, 1, 2, true, true));
        map3(list, "laplacian", Laplacian.class, "laplacian", List.of(1),
                (seed, s) -> grid(seed, s, 1, 3, false, false), (seed, s) -> grid(seed, s, 1, 3, true, false));
        map3(list, "wave13pt", Wave13pt.class, "wave", List.of(2), (seed, s) -> grid(seed, s, 2, 3, false, false),
                (seed, s) -> grid(seed, s, 2, 3, true, false));
        return list;
    }

    /** The five double-loop mappings, flat and 2d: {@code base}, {@code baseMap2_1}, ..., {@code base2d...}. */
    private static void map2(List<Entry> list, String sample, Class<?> owner, String base, List<Integer> outputs,
                             Args flat, Args rows) {
        mappings(list, sample, owner, base, MAP2, outputs, flat, rows);
    }

    /** The four triple-loop mappings, flat and 2d. */
    private static void map3(List<Entry> list, String sample, Class<?> owner, String base, List<Integer> outputs,
                             Args flat, Args rows) {
        mappings(list, sample, owner, base, MAP3, outputs, flat, rows);
    }

    private static void mappings(List<Entry> list, String sample, Class<?> owner, String base, String[] maps,
                                 List<Integer> outputs, Args flat, Args rows) {
        for (String map : maps) {
            String variant = map.isEmpty() ? "default" : map.toLowerCase(java.util.Locale.ROOT);
            list.add(new Entry(sample + ".flat." + variant, owner, base + map, base + "Plain", outputs, flat));
        }
        for (String map : maps) {
            String variant = map.isEmpty() ? "default" : map.toLowerCase(java.util.Locale.ROOT);
            list.add(new Entry(sample + ".2d." + variant, owner, base + "2d" + map, base + "2dPlain", outputs, rows));
        }
    }

    // (src, dst, m, n)
    private static Object[] jacobiFlat(long seed, int s) {
        int m = 37 * s;
        int n = 41 * s;
        Random r = new Random(seed);
        return new Object[] {Check.random(r, m * n), new double[m * n], m, n};
    }

    private static Object[] jacobi2d(long seed, int s) {
        Object[] a = jacobiFlat(seed, s);
        int m = (int) a[2];
        int n = (int) a[3];
        return new Object[] {Check.rows((double[]) a[0], m, n), new double[m][n], m, n};
    }

    // (a, b, c, m, n, p): c (m × n) = a (m × p) · b (p × n)
    private static Object[] dgemmFlat(long seed, int s) {
        int m = 37 * s;
        int n = 41 * s;
        int p = 23 * s;
        Random r = new Random(seed);
        return new Object[] {Check.random(r, m * p), Check.random(r, p * n), new double[m * n], m, n, p};
    }

    private static Object[] dgemm2d(long seed, int s) {
        Object[] a = dgemmFlat(seed, s);
        int m = (int) a[3];
        int n = (int) a[4];
        int p = (int) a[5];
        return new Object[] {Check.rows((double[]) a[0], m, p), Check.rows((double[]) a[1], p, n), new double[m][n],
            m, n, p};
    }

    // (a, b, w, m, n): random weights, so that a transposed or shifted table shows
    private static Object[] blurFlat(long seed, int s) {
        int m = 37 * s;
        int n = 41 * s;
        Random r = new Random(seed);
        return new Object[] {Check.random(r, m * n), new double[m * n], Check.random(r, 25), m, n};
    }

    private static Object[] blur2d(long seed, int s) {
        Object[] a = blurFlat(seed, s);
        int m = (int) a[3];
        int n = (int) a[4];
        return new Object[] {Check.rows((double[]) a[0], m, n), new double[m][n], a[2], m, n};
    }

    // (in, out, rows, cols)
    private static Object[] matrixFlat(long seed, int rows, int cols) {
        Random r = new Random(seed);
        return new Object[] {Check.random(r, rows * cols), new double[rows * cols], rows, cols};
    }

    private static Object[] matrix2d(long seed, int rows, int cols, boolean transposed) {
        Random r = new Random(seed);
        double[][] out = transposed ? new double[cols][rows] : new double[rows][cols];
        return new Object[] {Check.rows(Check.random(r, rows * cols), rows, cols), out, rows, cols};
    }

    /**
     * A 3D kernel's arguments: grids of 13s × 11s × 9s points, seeded before {@code outputIndex} and zeroed at it,
     * then nx, ny, nz, then {@code scalars} coefficients. Over rows, a row is an x-pencil ({@code [k*ny + j][i]})
     * when {@code xPencils}, else a z-pencil ({@code [i*ny + j][k]}).
     */
    private static Object[] grid(long seed, int s, int outputIndex, int scalars, boolean rows, boolean xPencils) {
        int nx = 13 * s;
        int ny = 11 * s;
        int nz = 9 * s;
        Random r = new Random(seed);
        List<Object> args = new ArrayList<>();
        IntFunction<Object> array = i -> {
            double[] flat = i == outputIndex ? new double[nx * ny * nz] : Check.random(r, nx * ny * nz);
            if (!rows) {
                return flat;
            }
            return xPencils ? Check.rows(flat, nz * ny, nx) : Check.rows(flat, nx * ny, nz);
        };
        for (int i = 0; i <= outputIndex; i++) {
            args.add(array.apply(i));
        }
        args.add(nx);
        args.add(ny);
        args.add(nz);
        for (int i = 0; i < scalars; i++) {
            args.add(r.nextDouble() * 2 - 1);
        }
        return args.toArray();
    }

    private static Method method(Class<?> owner, String name) {
        Method found = null;
        for (Method m : owner.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                if (found != null) {
                    throw new IllegalStateException(owner.getSimpleName() + "." + name + " is overloaded");
                }
                found = m;
            }
        }
        if (found == null) {
            throw new IllegalArgumentException("no method " + owner.getSimpleName() + "." + name);
        }
        found.setAccessible(true);
        return found;
    }

    private static Object copyValue(Object v) {
        if (v instanceof double[][] rows) {
            double[][] c = new double[rows.length][];
            for (int r = 0; r < rows.length; r++) {
                c[r] = rows[r].clone();
            }
            return c;
        }
        if (v instanceof double[] a) {
            return a.clone();
        }
        if (v != null && v.getClass().isArray()) {
            throw new IllegalArgumentException("deepCopy handles double[] and double[][], got "
                    + v.getClass().getTypeName());
        }
        return v;
    }

    private static String difference(String where, Object expected, Object actual) {
        if (expected instanceof double[][] e && actual instanceof double[][] a) {
            if (e.length != a.length) {
                return where + ": " + e.length + " rows != " + a.length;
            }
            for (int r = 0; r < e.length; r++) {
                String d = difference(where + " row " + r, e[r], a[r]);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (expected instanceof double[] e && actual instanceof double[] a) {
            if (e.length != a.length) {
                return where + ": length " + e.length + " != " + a.length;
            }
            for (int i = 0; i < e.length; i++) {
                if (Double.doubleToLongBits(e[i]) != Double.doubleToLongBits(a[i])) {
                    return where + " [" + i + "]: expected " + e[i] + ", got " + a[i];
                }
            }
            return null;
        }
        return java.util.Objects.equals(expected, actual) ? null : where + ": " + expected + " != " + actual;
    }

    private static boolean nonZero(Object v) {
        if (v instanceof double[][] rows) {
            for (double[] row : rows) {
                if (nonZero(row)) {
                    return true;
                }
            }
            return false;
        }
        for (double x : (double[]) v) {
            if (x != 0) {
                return true;
            }
        }
        return false;
    }
}
