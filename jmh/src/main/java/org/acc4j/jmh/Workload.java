package org.acc4j.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One {@link Sample} at one size: its arguments (seeded inputs, zeroed outputs), the plain-Java reference result
 * and the check of a result against it. The size is {@code n} for the 2D grids (n × n), the matrices (n × n, DGEMM
 * n × n × n) and vectors (n elements), {@code nx x ny x nz} for the 3D grids.
 */
final class Workload {
    /** The reference runs in full up to this many multiply-adds; above it, elements are sampled (DGEMM 4096). */
    static final long FULL_CHECK_MAX_WORK = 1L << 31;
    /** Elements compared when sampling, each recomputed by plain Java. */
    static final int SAMPLES = 100_000;

    /**
     * The last workload of each form ({@code flat}, {@code 2d}), kept for the next trial in the same JVM: JMH runs a
     * class's benchmarks in a row, alphabetically, so a class with both forms alternates between them.
     */
    private static final java.util.Map<String, Workload> LAST = new java.util.HashMap<>();

    final Sample sample;
    final String size;
    private final Object[] template;
    private final Kernel reference;
    private Expected expected;
    private Expected expectedStreams;

    private Workload(Sample sample, String size, Object[] template) {
        this.sample = sample;
        this.size = size;
        this.template = template;
        this.reference = sample.reference();
    }

    /** The workload of {@code sample} at {@code size}, reused if it was the last one asked for. */
    static synchronized Workload of(Sample sample, String size) {
        Workload last = LAST.get(sample.form());
        if (last == null || !last.sample.name().equals(sample.name()) || !last.size.equals(size)) {
            // let the previous arrays of this form and of other families go before allocating new ones
            LAST.values().removeIf(w -> !w.sample.name().equals(sample.name()));
            LAST.remove(sample.form());
            Object[] args;
            try {
                args = sample.arguments().create(new Seeded(20_261_122L), dims(size));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(sample.name() + " at size " + size + ": " + e.getMessage(), e);
            }
            last = new Workload(sample, size, args);
            LAST.put(sample.form(), last);
        }
        return last;
    }

    /** The workload of a catalogued sample. */
    static Workload of(String sample, String size) {
        return of(Sample.of(sample), size);
    }

    /** The reference method. */
    Kernel reference() {
        return reference;
    }

    /** Arguments for one state: the shared inputs and scalars, and new zeroed outputs of the template's shape. */
    Object[] freshArgs() {
        Object[] args = template.clone();
        for (int i : reference.outputs()) {
            if (template[i] instanceof double[][] rows) {
                double[][] fresh = new double[rows.length][];
                for (int r = 0; r < rows.length; r++) {
                    fresh[r] = new double[rows[r].length];
                }
                args[i] = fresh;
            } else {
                args[i] = new double[((double[]) template[i]).length];
            }
        }
        return args;
    }

    /** The arrays among {@code args} ({@code double[]} and {@code double[][]}). */
    static Object[] arrays(Object[] args) {
        List<Object> a = new ArrayList<>();
        for (Object o : args) {
            if (o instanceof double[] || o instanceof double[][]) {
                a.add(o);
            }
        }
        return a.toArray();
    }

    /** The rows of an output: the array itself for {@code double[]}, its rows for {@code double[][]}. */
    static double[][] rowsOf(Object array) {
        return array instanceof double[][] rows ? rows : new double[][] {(double[]) array};
    }

    /** The output arrays among {@code args}. */
    Object[] outputs(Object[] args) {
        return reference.outputs().stream().map(i -> args[i]).toArray();
    }

    /** Zeroes the outputs, so that the next check sees only what the next call writes. */
    void clearOutputs(Object[] args) {
        for (Object o : outputs(args)) {
            for (double[] row : rowsOf(o)) {
                java.util.Arrays.fill(row, 0.0);
            }
        }
    }

    /** Whether every output element is zero (nothing written). */
    boolean outputsUntouched(Object[] args) {
        for (Object o : outputs(args)) {
            for (double[] row : rowsOf(o)) {
                for (double x : row) {
                    if (x != 0.0 || Double.doubleToRawLongBits(x) != 0L) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** The reference result, computed on first use (by plain Java: once per workload). */
    synchronized Expected expected() {
        if (expected == null) {
            expected = sampled() ? Expected.sampledDgemm(template, SAMPLES)
                    : Expected.full(reference, freshArgs(), reference.outputs(), sample.tolerance());
        }
        return expected;
    }

    /**
     * The result the parallel-streams version must reproduce bit for bit: the reference's, or where the streams
     * version adds in another order (the dot product), that of {@link Sample#streamsReference}, which adds in the
     * same order serially.
     */
    synchronized Expected expectedStreams() {
        if (sample.streamsReference() == null) {
            return expected();
        }
        if (expectedStreams == null) {
            expectedStreams = Expected.full(sample.streamsReference(), freshArgs(), reference.outputs(), 0);
        }
        return expectedStreams;
    }

    /** As {@link #check}, for the parallel-streams version (against {@link #expectedStreams}). */
    void checkStreams(String who, Object[] args, Object returned) {
        String d = expectedStreams().difference(args, returned);
        if (d != null) {
            throw new IllegalStateException(who + " at " + size + " differs from plain Java"
                    + (sample.streamsReference() == null ? "" : " adding in the same order ("
                    + sample.streamsReference() + ")") + ": " + d);
        }
    }

    /** Whether the check compares sampled elements rather than the whole result (only DGEMM above 2^31 FMAs). */
    boolean sampled() {
        if (!sample.name().equals("dgemm")) {
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
        return d;
    }
}
