package org.acc4j.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * One benchmarked problem at one size: its arguments (seeded inputs, zeroed outputs), the plain-Java reference
 * and the check of a result against it. A sample is named as in {@link org.acc4j.samples.Catalog}
 * ({@code jacobi}, {@code dgemm}, {@code gaussblur}, {@code copy}, {@code transpose}, {@code stencil},
 * {@code laplacian}, {@code wave13pt}) or {@code vectoradd}; the size is {@code n} for the 2D grids (n × n), the
 * matrices (n × n, DGEMM n × n × n) and the vector add (n elements), {@code nx x ny x nz} for the 3D grids.
 *
 * <p>A dot product (reductions are being written) joins by one more case in {@link #arguments} and a
 * {@code DotBench} class; {@link Expected} already compares what a method returns.
 */
final class Workload {
    /** The reference runs in full up to this many multiply-adds; above it, elements are sampled (DGEMM 4096). */
    static final long FULL_CHECK_MAX_WORK = 1L << 31;
    /** Elements compared when sampling, each recomputed by plain Java. */
    static final int SAMPLES = 100_000;

    /** The last workload, kept for the next trial in the same JVM (JMH runs a class's benchmarks in a row). */
    private static Workload last;

    final String sample;
    final String size;
    private final Object[] template;
    private final Kernel reference;
    private Expected expected;

    private Workload(String sample, String size, Object[] template) {
        this.sample = sample;
        this.size = size;
        this.template = template;
        this.reference = Kernel.reference(sample);
    }

    /** The workload of {@code sample} at {@code size}, reused if it was the last one asked for. */
    static synchronized Workload of(String sample, String size) {
        if (last == null || !last.sample.equals(sample) || !last.size.equals(size)) {
            last = null; // let the previous arrays go before allocating new ones
            last = new Workload(sample, size, arguments(sample, size, 20_261_122L));
        }
        return last;
    }

    /** The reference method. */
    Kernel reference() {
        return reference;
    }

    /** Arguments for one state: the shared inputs and scalars, and new zeroed outputs. */
    Object[] freshArgs() {
        Object[] args = template.clone();
        for (int i : reference.outputs()) {
            args[i] = new double[((double[]) template[i]).length];
        }
        return args;
    }

    /** The arrays among {@code args}. */
    static Object[] arrays(Object[] args) {
        List<Object> a = new ArrayList<>();
        for (Object o : args) {
            if (o instanceof double[]) {
                a.add(o);
            }
        }
        return a.toArray();
    }

    /** The output arrays among {@code args}. */
    Object[] outputs(Object[] args) {
        return reference.outputs().stream().map(i -> args[i]).toArray();
    }

    /** Zeroes the outputs, so that the next check sees only what the next call writes. */
    void clearOutputs(Object[] args) {
        for (Object o : outputs(args)) {
            java.util.Arrays.fill((double[]) o, 0.0);
        }
    }

    /** Whether every output element is zero (nothing written). */
    boolean outputsUntouched(Object[] args) {
        for (Object o : outputs(args)) {
            for (double x : (double[]) o) {
                if (x != 0.0 || Double.doubleToRawLongBits(x) != 0L) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The reference result, computed on first use (by plain Java: once per workload). */
    synchronized Expected expected() {
        if (expected == null) {
            expected = sampled() ? Expected.sampledDgemm(template, SAMPLES)
                    : Expected.full(reference, freshArgs(), reference.outputs());
        }
        return expected;
    }

    /** Whether the check compares sampled elements rather than the whole result (only DGEMM above 2^31 FMAs). */
    boolean sampled() {
        if (!sample.equals("dgemm")) {
            return false;
        }
        long n = (int) template[3];
        return n * n * n > FULL_CHECK_MAX_WORK;
    }

    /**
     * Checks a result against plain Java, bit for bit; throws {@link IllegalStateException} naming the first
     * difference, so that a wrong kernel is never timed.
     */
    void check(String who, Object[] args, Object returned) {
        String d = expected().difference(args, returned);
        if (d != null) {
            throw new IllegalStateException(who + " at " + size + " differs from plain Java: " + d);
        }
    }

    // ------------------------------------------------------------------------------------------ arguments

    private static Object[] arguments(String sample, String size, long seed) {
        int[] d = dims(size);
        boolean grid3d = sample.equals("stencil") || sample.equals("laplacian") || sample.equals("wave13pt");
        if (!grid3d && d.length != 1) {
            throw new IllegalArgumentException(sample + " takes one size n, got " + size);
        }
        Seeded r = new Seeded(seed);
        return switch (sample) {
            case "jacobi", "copy", "transpose" -> new Object[] {r.array(d[0] * d[0]), new double[d[0] * d[0]], d[0], d[0]};
            case "gaussblur" -> new Object[] {r.array(d[0] * d[0]), new double[d[0] * d[0]], r.array(25), d[0], d[0]};
            case "dgemm" -> new Object[] {r.array(d[0] * d[0]), r.array(d[0] * d[0]), new double[d[0] * d[0]], d[0], d[0],
                d[0]};
            case "vectoradd" -> new Object[] {r.array(d[0]), r.array(d[0]), new double[d[0]], d[0]};
            case "stencil" -> grid(r, d, 1, 2);
            case "laplacian" -> grid(r, d, 1, 3);
            case "wave13pt" -> grid(r, d, 2, 3);
            // case "dot" -> new Object[] {r.array(d[0]), r.array(d[0]), d[0]};  (when reductions land)
            default -> throw new IllegalArgumentException("no benchmark sample " + sample);
        };
    }

    /** Seeded inputs before {@code output}, a zeroed grid at it, then nx, ny, nz and the scalar coefficients. */
    private static Object[] grid(Seeded r, int[] d, int output, int scalars) {
        if (d.length != 3) {
            throw new IllegalArgumentException("a 3D grid needs nx x ny x nz, got " + d.length + " sizes");
        }
        int points = Math.multiplyExact(Math.multiplyExact(d[0], d[1]), d[2]);
        List<Object> args = new ArrayList<>();
        for (int i = 0; i < output; i++) {
            args.add(r.array(points));
        }
        args.add(new double[points]);
        args.add(d[0]);
        args.add(d[1]);
        args.add(d[2]);
        for (int i = 0; i < scalars; i++) {
            args.add(r.next() * 0.25);
        }
        return args.toArray();
    }

    /** {@code "8192"} → [8192]; {@code "512x512x64"} → [512, 512, 64]. */
    static int[] dims(String size) {
        String[] parts = size.toLowerCase(Locale.ROOT).split("x");
        int[] d = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            d[i] = Integer.parseInt(parts[i].trim());
            if (d[i] < 5) {
                throw new IllegalArgumentException("size " + size + ": every extent must be at least 5");
            }
        }
        if (d.length == 1) {
            Math.multiplyExact(d[0], d[0]); // n × n must index an int array
        }
        return d;
    }

    /** Values in [-1, 1) from a seed and the index (SplitMix64), filled in parallel and the same every run. */
    private static final class Seeded {
        private long stream;

        Seeded(long seed) {
            this.stream = seed;
        }

        double[] array(int n) {
            long base = mix(stream++);
            double[] a = new double[n];
            IntStream.range(0, n).parallel().forEach(i -> a[i] = unit(mix(base + i * 0x9E3779B97F4A7C15L)));
            return a;
        }

        double next() {
            return unit(mix(stream++));
        }

        private static double unit(long bits) {
            return (bits >>> 11) * 0x1.0p-53 * 2 - 1;
        }

        private static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }
    }
}
