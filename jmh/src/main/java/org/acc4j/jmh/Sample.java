package org.acc4j.jmh;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A benchmarked kernel family, all the harness knows of it: how to make its arguments at a size, its plain-Java
 * reference, its {@code @Kernels} method per variant and its parallel-streams version. The nine loop-nest
 * samples come from {@link org.acc4j.samples.Catalog} ({@link #of}); a new benchmark class can declare its own,
 * as {@code DotBench} will for the dot product:
 * <pre>{@code
 * static final Sample SAMPLE = new Sample("dot", (r, d) -> new Object[] {r.array(d[0]), r.array(d[0]), d[0]},
 *         a -> ..., Kernel.of(Dot.class, "dotPlain", List.of()), v -> Kernel.of(Dot.class, "dot", List.of()), 1e-12);
 * }</pre>
 *
 * @param name      the family's name: the catalogue's ({@code jacobi}, ...) and the report's (its benchmark class
 *                  is {@code <Name>Bench})
 * @param arguments seeded inputs and zeroed outputs for a parsed size ({@code [n]} or {@code [nx, ny, nz]})
 * @param streams   the parallel-streams version, on the reference's arguments
 * @param reference the plain method
 * @param offloaded the {@code @Kernels} method of a variant
 * @param tolerance relative tolerance on a returned {@code double} (a reduction sums in another order on the
 *                  GPU); 0 compares it bit for bit. Output arrays are always compared bit for bit.
 */
record Sample(String name, Arguments arguments, Consumer<Object[]> streams, Kernel reference,
              Function<String, Kernel> offloaded, double tolerance) {

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
        return new Sample(name, args, Streams.of(name), Kernel.reference(name), v -> Kernel.offloaded(name, v), 0);
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
