package org.acc4j.jmh;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A benchmarked kernel family, all the harness knows of it: how to make its arguments at a size, its plain-Java
 * reference, its {@code @Kernels} method per variant and its parallel-streams version. The nine loop-nest
 * samples come from {@link org.acc4j.samples.Catalog} ({@link #of} for the flat {@code double[]} form, {@link #rows}
 * for the {@code double[][]} form); a benchmark class can declare its own, as {@code DotBench} does:
 * <pre>{@code
 * static final Sample SAMPLE = new Sample("dot", (r, d) -> new Object[] {r.array(d[0]), r.array(d[0]), d[0]},
 *         a -> ..., Kernel.of(Dot.class, "dotPlain", List.of()), v -> Kernel.of(Dot.class, "dot", List.of()), 1e-12);
 * }</pre>
 *
 * @param name      the family's name: the catalogue's ({@code jacobi}, ...) and the report's (its benchmark class
 *                  is {@code <Name>Bench})
 * @param form      {@code flat} ({@code double[]} indexed {@code a[i*n + j]}) or {@code 2d} ({@code double[][]}), as
 *                  in the catalogue's names
 * @param arguments seeded inputs and zeroed outputs for a parsed size ({@code [n]} or {@code [nx, ny, nz]})
 * @param streams   the parallel-streams version, on the reference's arguments; returns what the call computes (a
 *                  reduction's value) or null
 * @param reference the plain method
 * @param streamsReference where the streams version adds in another order than {@code reference} (the dot
 *                  product's chunks), a plain serial method adding in the streams version's order, which it must
 *                  match bit for bit; null where the streams version is checked against {@code reference}
 * @param offloaded the {@code @Kernels} method of a variant
 * @param tolerance relative tolerance on a returned {@code double} (a reduction sums in another order on the
 *                  GPU); 0 compares it bit for bit. Output arrays are always compared bit for bit.
 */
record Sample(String name, String form, Arguments arguments, Function<Object[], Object> streams, Kernel reference,
              Kernel streamsReference, Function<String, Kernel> offloaded, double tolerance) {

    /** A flat family outside the catalogue whose streams version computes in the reference's order. */
    Sample(String name, Arguments arguments, Consumer<Object[]> streams, Kernel reference,
           Function<String, Kernel> offloaded, double tolerance) {
        this(name, "flat", arguments, a -> {
            streams.accept(a);
            return null;
        }, reference, null, offloaded, tolerance);
    }

    /** Makes the arguments from a seeded source and the size. */
    @FunctionalInterface
    interface Arguments {
        Object[] create(Seeded random, int[] dims);
    }

    /** One of the catalogued loop-nest samples or the vector add. */
    static Sample of(String name) {
        Arguments args = switch (name) {
            case "jacobi", "copy", "transpose" -> (r, d) -> new Object[] {r.array(square(d)), new double[square(d)],
                d[0], d[0]};
            case "gaussblur" -> (r, d) -> new Object[] {r.array(square(d)), new double[square(d)], r.array(25), d[0],
                d[0]};
            case "dgemm" -> (r, d) -> new Object[] {r.array(square(d)), r.array(square(d)), new double[square(d)], d[0],
                d[0], d[0]};
            case "vectoradd" -> (r, d) -> new Object[] {r.array(one(d)), r.array(one(d)), new double[one(d)], d[0]};
            case "stencil" -> (r, d) -> r.grid(d, 1, 2);
            case "laplacian" -> (r, d) -> r.grid(d, 1, 3);
            case "wave13pt" -> (r, d) -> r.grid(d, 2, 3);
            default -> throw new IllegalArgumentException("no benchmark sample " + name);
        };
        Consumer<Object[]> streams = Streams.of(name);
        return new Sample(name, "flat", args, a -> {
            streams.accept(a);
            return null;
        }, Kernel.reference(name), null, v -> Kernel.offloaded(name, v), 0);
    }

    /**
     * The {@code double[][]} form of a catalogued sample with square arguments (jacobi, dgemm, copy, transpose): the
     * same seeded values as {@link #of}'s flat arrays, row by row, so both forms compute the same numbers. There is
     * no parallel-streams version of this form.
     */
    static Sample rows(String name) {
        Arguments args = switch (name) {
            case "jacobi", "copy", "transpose" -> (r, d) -> new Object[] {rows(r.array(square(d)), d[0]),
                new double[d[0]][d[0]], d[0], d[0]};
            case "dgemm" -> (r, d) -> new Object[] {rows(r.array(square(d)), d[0]), rows(r.array(square(d)), d[0]),
                new double[d[0]][d[0]], d[0], d[0], d[0]};
            default -> throw new IllegalArgumentException("no double[][] benchmark of " + name);
        };
        return new Sample(name, "2d", args, a -> {
            throw new UnsupportedOperationException("no parallel-streams version of the double[][] form of " + name);
        }, Kernel.reference(name, "2d"), null, v -> Kernel.offloaded(name, "2d", v), 0);
    }

    /** The catalogue's name of this family's kernel {@code variant}, e.g. {@code jacobi.2d.default}. */
    String entry(String variant) {
        return name + "." + form + "." + variant;
    }

    private static double[][] rows(double[] flat, int n) {
        double[][] a = new double[n][];
        for (int r = 0; r < n; r++) {
            a[r] = java.util.Arrays.copyOfRange(flat, r * n, (r + 1) * n);
        }
        return a;
    }

    private static int one(int[] d) {
        if (d.length != 1) {
            throw new IllegalArgumentException("takes one size n, got " + d.length);
        }
        return d[0];
    }

    private static int square(int[] d) {
        return Math.multiplyExact(one(d), d[0]);
    }
}
