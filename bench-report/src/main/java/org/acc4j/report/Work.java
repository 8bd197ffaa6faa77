package org.acc4j.report;

import java.util.Locale;

/**
 * What one call of a benchmarked kernel does, the one definition every figure of the report is computed from:
 * the bytes it must move at least (each input element read once, each output element written once) and its
 * floating-point operations. The counts are those of the samples' own tables ({@code Jacobi.main} and the rest)
 * and of the peers in {@code shared/anchors} (whose Jacobi counts the whole grid, 2 × 8 × n², where this counts
 * the interior: 0.05 % less at n = 8192).
 *
 * @param bytes  bytes moved by one call
 * @param flops  floating-point operations of one call
 * @param unit   the figure the report gives for this kernel: {@code "GB/s"} or {@code "TFLOP/s"}
 */
public record Work(double bytes, double flops, String unit) {
    public static final String GBS = "GB/s";
    public static final String TFLOPS = "TFLOP/s";

    /** The work of {@code sample} (as in {@code org.acc4j.samples.Catalog}, or vectoradd, dot) at {@code size}. */
    public static Work of(String sample, String size) {
        double[] d = dims(size);
        return switch (sample) {
            // per interior point: read one, write one; 4 flops (3 adds, 1 multiply)
            case "jacobi" -> grid2d(d, 1, 16, 4);
            // 25 multiply-adds per interior point (2 cells of border)
            case "gaussblur" -> grid2d(d, 2, 16, 50);
            case "copy", "transpose" -> new Work(16 * d[0] * d[0], 0, GBS);
            case "vectoradd" -> new Work(24 * d[0], d[0], GBS);
            case "dot" -> new Work(16 * d[0], 2 * d[0], GBS);
            // c = a · b: 2 n³ flops; a, b read and c written once at least
            case "dgemm" -> new Work(24 * d[0] * d[0], 2 * d[0] * d[0] * d[0], TFLOPS);
            // interior points; stencil: 2 mul + 6 adds + 1 add; laplacian: 3 × (2 subs + mul) + 2 adds + 3 muls
            case "stencil" -> grid3d(d, 1, 16, 9);
            case "laplacian" -> grid3d(d, 1, 16, 17);
            // w2 = m0·w1 - w0 + m1·(6 terms) + m2·(6 terms): 3 muls, 12 adds, 1 sub
            case "wave13pt" -> grid3d(d, 2, 24, 16);
            // n rows of 16 non-zeros: value and column (12 bytes) per non-zero, the row pointer, x and y once per row;
            // a multiply-add per non-zero
            case "spmv" -> new Work(d[0] * (16 * 12 + 4 + 8 + 8), 2 * 16 * d[0], GBS);
            default -> throw new IllegalArgumentException("no work defined for sample " + sample);
        };
    }

    /** The figure of a call taking {@code ms} milliseconds, in {@link #unit}. */
    public double rate(double ms) {
        return unit.equals(TFLOPS) ? flops / ms / 1e9 : bytes / ms / 1e6;
    }

    private static Work grid2d(double[] d, int border, double bytesPerPoint, double flopsPerPoint) {
        double points = (d[0] - 2 * border) * (d[0] - 2 * border);
        return new Work(bytesPerPoint * points, flopsPerPoint * points, GBS);
    }

    private static Work grid3d(double[] d, int border, double bytesPerPoint, double flopsPerPoint) {
        if (d.length != 3) {
            throw new IllegalArgumentException("a 3D grid needs nx x ny x nz");
        }
        double points = (d[0] - 2 * border) * (d[1] - 2 * border) * (d[2] - 2 * border);
        return new Work(bytesPerPoint * points, flopsPerPoint * points, GBS);
    }

    static double[] dims(String size) {
        String[] parts = size.toLowerCase(Locale.ROOT).split("x");
        double[] d = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            d[i] = Double.parseDouble(parts[i].trim());
        }
        return d;
    }
}
