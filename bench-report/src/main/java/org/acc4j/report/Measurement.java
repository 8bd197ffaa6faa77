package org.acc4j.report;

/**
 * One JMH result: a sample's kernel in one mode at one size and variant.
 *
 * @param sample  {@code jacobi}, {@code dgemm}, ... (the benchmark class's name less {@code Bench}, lower case)
 * @param mode    the benchmark method: {@code serial}, {@code streams}, {@code gpuKernel}, {@code gpuTotal}
 * @param size    the {@code size} parameter
 * @param variant the {@code variant} parameter (GPU modes), else empty
 * @param ms      mean milliseconds per call
 * @param error   JMH's 99.9 % half-interval in milliseconds (NaN with fewer than two iterations)
 * @param onHost  true when the run allowed GPU modes to run on the host ({@code -Dbench.allowHost=true})
 * @param form    {@code flat} ({@code double[]}) or {@code 2d} ({@code double[][]}: the benchmark methods ending in
 *                {@code 2d}, whose mode is given here without the suffix)
 * @param tag     the pass's tag from its file name ({@code jmh-Jacobi-checked.json}: {@code checked}), empty for the
 *                main pass
 */
public record Measurement(String sample, String mode, String size, String variant, double ms, double error,
                          boolean onHost, String form, String tag) {
    public static final String FLAT = "flat";
    public static final String ROWS = "2d";

    /** A flat result of the main pass. */
    public Measurement(String sample, String mode, String size, String variant, double ms, double error,
                       boolean onHost) {
        this(sample, mode, size, variant, ms, error, onHost, FLAT, "");
    }

    /** This result, of the pass tagged {@code tag}. */
    public Measurement withTag(String tag) {
        return new Measurement(sample, mode, size, variant, ms, error, onHost, form, tag);
    }

    public static final String SERIAL = "serial";
    public static final String STREAMS = "streams";
    public static final String KERNEL = "gpuKernel";
    public static final String TOTAL = "gpuTotal";

    /** Whether this is an acc4j mode. */
    public boolean gpu() {
        return mode.equals(KERNEL) || mode.equals(TOTAL);
    }

    /** The figure of this call, in its sample's unit. */
    public double rate() {
        return work().rate(ms);
    }

    public Work work() {
        return Work.of(sample, size);
    }
}
