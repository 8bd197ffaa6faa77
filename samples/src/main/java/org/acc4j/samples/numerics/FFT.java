package org.acc4j.samples.numerics;

import java.util.Random;
import org.acc4j.Kernels;

/**
 * Radix-2 complex FFT in the manner of SciMark's FFT: data holds n complex numbers as (re, im) pairs; the
 * transform reorders the data by bit reversal, then for each of the log2(n) stages applies the butterflies, with
 * the twiddle factors advanced by the trigonometric recurrence between the butterfly loops. The inverse transform
 * divides by n, so that {@code inverse(transform(x)) == x} to rounding.
 *
 * <p>Run: {@code java FFT [n [cycles]]} (defaults 1024 complex points, 20 transform-and-inverse pairs).
 */
public final class FFT {
    static final long SEED = 1234L;

    private FFT() {
    }

    public static void transform(double[] data) {
        transformInternal(data, -1);
    }

    @Kernels
    public static void inverse(double[] data) {
        transformInternal(data, +1);
        int nd = data.length;
        int n = nd / 2;
        double norm = 1 / ((double) n);
        for (int i = 0; i < nd; i++) {
            data[i] *= norm;
        }
    }

    static int log2(int n) {
        int log = 0;
        for (int k = 1; k < n; k *= 2, log++) {
            // counts the doublings
        }
        if (n != (1 << log)) {
            throw new IllegalArgumentException("FFT: data length is not a power of 2: " + n);
        }
        return log;
    }

    @Kernels
    static void transformInternal(double[] data, int direction) {
        if (data.length == 0) {
            return;
        }
        int n = data.length / 2;
        if (n == 1) {
            return;
        }
        int logn = log2(n);

        bitreverse(data);

        for (int bit = 0, dual = 1; bit < logn; bit++, dual *= 2) {
            double wReal = 1.0;
            double wImag = 0.0;

            double theta = 2.0 * direction * Math.PI / (2.0 * (double) dual);
            double s = Math.sin(theta);
            double t = Math.sin(theta / 2.0);
            double s2 = 2.0 * t * t;

            // a = 0: w = 1
            for (int b = 0; b < n; b += 2 * dual) {
                int i = 2 * b;
                int j = 2 * (b + dual);
                double wdReal = data[j];
                double wdImag = data[j + 1];
                data[j] = data[i] - wdReal;
                data[j + 1] = data[i + 1] - wdImag;
                data[i] += wdReal;
                data[i + 1] += wdImag;
            }

            // a = 1 .. dual - 1
            for (int a = 1; a < dual; a++) {
                // w = exp(i theta) w, by the trigonometric recurrence
                {
                    double tmpReal = wReal - s * wImag - s2 * wReal;
                    double tmpImag = wImag + s * wReal - s2 * wImag;
                    wReal = tmpReal;
                    wImag = tmpImag;
                }
                for (int b = 0; b < n; b += 2 * dual) {
                    int i = 2 * (b + a);
                    int j = 2 * (b + a + dual);
                    double z1Real = data[j];
                    double z1Imag = data[j + 1];
                    double wdReal = wReal * z1Real - wImag * z1Imag;
                    double wdImag = wReal * z1Imag + wImag * z1Real;
                    data[j] = data[i] - wdReal;
                    data[j + 1] = data[i + 1] - wdImag;
                    data[i] += wdReal;
                    data[i + 1] += wdImag;
                }
            }
        }
    }

    static void bitreverse(double[] data) {
        int n = data.length / 2;
        int nm1 = n - 1;
        int j = 0;
        for (int i = 0; i < nm1; i++) {
            int ii = i << 1;
            int jj = j << 1;
            int k = n >> 1;
            if (i < j) {
                double tmpReal = data[ii];
                double tmpImag = data[ii + 1];
                data[ii] = data[jj];
                data[ii + 1] = data[jj + 1];
                data[jj] = tmpReal;
                data[jj + 1] = tmpImag;
            }
            while (k <= j) {
                j -= k;
                k >>= 1;
            }
            j += k;
        }
    }

    /** The root mean square of the difference, over all 2n doubles. */
    static double rms(double[] a, double[] b) {
        double sum = 0.0;
        for (int i = 0; i < a.length; i++) {
            double d = a[i] - b[i];
            sum += d * d;
        }
        return Math.sqrt(sum / a.length);
    }

    /**
     * The largest difference between the transform and a direct sum {@code X[k] = sum_t x[t] e^(-2 pi i t k / n)}
     * at a few frequencies k, relative to the largest |X[k]| there.
     */
    static double directError(double[] input, double[] transformed, int[] frequencies) {
        int n = input.length / 2;
        double err = 0.0;
        double scale = 0.0;
        for (int k : frequencies) {
            double re = 0.0;
            double im = 0.0;
            for (int t = 0; t < n; t++) {
                double angle = -2.0 * Math.PI * ((long) t * k % n) / n;
                double c = Math.cos(angle);
                double s = Math.sin(angle);
                re += input[2 * t] * c - input[2 * t + 1] * s;
                im += input[2 * t] * s + input[2 * t + 1] * c;
            }
            err = Math.max(err, Math.hypot(re - transformed[2 * k], im - transformed[2 * k + 1]));
            scale = Math.max(scale, Math.hypot(re, im));
        }
        return err / scale;
    }

    public static void main(String[] args) {
        int n = Report.arg(args, 0, 1024);
        int cycles = Report.arg(args, 1, 20);
        Random random = new Random(SEED);
        double[] input = new double[2 * n];
        for (int i = 0; i < input.length; i++) {
            input[i] = random.nextDouble();
        }
        double[] data = input.clone();
        double[] transformed = null;
        Report.title("FFT", n + " complex points, " + cycles + " transform-and-inverse pairs");
        long t0 = System.nanoTime();
        for (int c = 0; c < cycles; c++) {
            transform(data);
            if (transformed == null) {
                transformed = data.clone();
            }
            inverse(data);
        }
        double seconds = (System.nanoTime() - t0) * 1e-9;
        if (transformed == null) {
            transformed = data.clone();
            transform(transformed);
        }
        double rms = rms(input, data);
        double direct = directError(input, transformed, new int[] {0, 1, 2, 3, n / 3, n / 2, n - 1});
        Report.checksum(new Checksum().add(transformed).add(data));
        Report.result("rms", rms);
        Report.result("direct", direct);
        System.out.printf("  rms(inverse(transform(x)) - x) = %.3e after %d pairs, transform against direct sums %.3e%n",
                rms, cycles, direct);
        double flops = 5.0 * n * Math.log(n) / Math.log(2) * 2 * cycles;
        System.out.printf("  time: %.3f s, %.3f us per transform, %.1f MFLOP/s%n", seconds,
                1e6 * seconds / Math.max(1, 2 * cycles), flops / seconds * 1e-6);
        String failure = !(rms < 1.0e-12) ? "the inverse differs from the input by " + rms + " (rms)"
                : !(direct < 1.0e-12) ? "the transform differs from direct sums by " + direct : null;
        Report.verification(failure);
    }
}
