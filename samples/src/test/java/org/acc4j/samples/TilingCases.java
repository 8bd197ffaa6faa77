package org.acc4j.samples;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.pass.Tiling;
import org.acc4j.compiler.ptx.TiledEmitter;

/**
 * The samples' transpose and matmul kernels with no hints, as the tiling pass takes them, with inputs from a fixed
 * seed: sizes that are not multiples of a tile, single rows and columns, empty ranges, and large enough for many
 * blocks.
 */
final class TilingCases {
    private TilingCases() {
    }

    /** One call: the method of {@code owner} and its arguments. */
    record Case(Class<?> owner, String name, Object[] args, String label) {
        Method method() {
            for (Method m : owner.getDeclaredMethods()) {
                if (m.getName().equals(name)) {
                    m.setAccessible(true);
                    return m;
                }
            }
            throw new IllegalArgumentException(name);
        }

        String descriptor() {
            Method m = method();
            return MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        }

        Object[] copy() {
            Object[] out = args.clone();
            for (int k = 0; k < out.length; k++) {
                if (out[k] instanceof double[] d) {
                    out[k] = d.clone();
                } else if (out[k] instanceof double[][] d) {
                    double[][] c = new double[d.length][];
                    for (int r = 0; r < d.length; r++) {
                        c[r] = d[r].clone();
                    }
                    out[k] = c;
                }
            }
            return out;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /**
     * {@code m} with its matmul kernels shaped by {@code tile} (their PTX emitted again): how the tests run every
     * candidate, whichever one the configuration selects; {@code m} itself when it has no matmul kernel.
     */
    static CompiledMethod withTile(CompiledMethod m, Tiling.MatmulTile tile) {
        List<KernelPlan> ks = new ArrayList<>();
        for (KernelPlan k : m.kernels()) {
            KernelPlan.Unchecked u = k.unchecked();
            if (u != null && u.tiled() instanceof Tiling.Matmul mm) {
                Tiling.Matmul t = mm.withTile(tile);
                u = new KernelPlan.Unchecked(u.entry(), TiledEmitter.emit(m.body(), t, u.entry(), k.params(), 90),
                        u.sites(), u.checks(), t);
            }
            ks.add(new KernelPlan(k.region(), k.entry(), k.ptx(), k.params(), k.sites(), u));
        }
        return new CompiledMethod(m.body(), ks, m.data(), m.report(), m.outputs(), m.guards());
    }

    /** {@code m} once per candidate matmul tile, or {@code m} alone when it has no matmul kernel. */
    static List<CompiledMethod> everyTile(CompiledMethod m) {
        if (m.kernels().stream().noneMatch(k -> k.unchecked() != null && k.unchecked().tiled() instanceof Tiling.Matmul)) {
            return List.of(m);
        }
        return Tiling.MatmulTile.CANDIDATES.stream().map(t -> withTile(m, t)).toList();
    }

    static double[] doubles(Random r, int n) {
        double[] a = new double[n];
        for (int k = 0; k < n; k++) {
            a[k] = r.nextDouble() * 2 - 1;
        }
        return a;
    }

    static double[][] doubles2(Random r, int rows, int cols) {
        double[][] a = new double[rows][];
        for (int k = 0; k < rows; k++) {
            a[k] = doubles(r, cols);
        }
        return a;
    }

    /** Transposes of {@code rows x cols} for each size, flat and two-dimensional. */
    static List<Case> transposes(int[][] sizes) {
        Random r = new Random(151);
        List<Case> out = new ArrayList<>();
        for (int[] s : sizes) {
            int n = s[0] * s[1];
            out.add(new Case(Transpose.class, "transposeNaive", new Object[] {doubles(r, n), new double[n], s[0], s[1]},
                    "transposeNaive " + s[0] + "x" + s[1]));
            out.add(new Case(Transpose.class, "transpose2dNaive", new Object[] {doubles2(r, s[0], s[1]),
                new double[s[1]][s[0]], s[0], s[1]}, "transpose2dNaive " + s[0] + "x" + s[1]));
        }
        return out;
    }

    /** Products of {@code m x p} by {@code p x n} for each size, flat and two-dimensional. */
    static List<Case> matmuls(int[][] sizes) {
        Random r = new Random(152);
        List<Case> out = new ArrayList<>();
        for (int[] s : sizes) {
            int m = s[0];
            int n = s[1];
            int p = s[2];
            out.add(new Case(Dgemm.class, "multiply", new Object[] {doubles(r, m * p), doubles(r, p * n),
                new double[m * n], m, n, p}, "multiply " + m + "x" + n + "x" + p));
            out.add(new Case(Dgemm.class, "multiply2d", new Object[] {doubles2(r, m, p), doubles2(r, p, n),
                new double[m][n], m, n, p}, "multiply2d " + m + "x" + n + "x" + p));
        }
        return out;
    }
}
