package org.acc4j.samples.numerics;

import org.acc4j.Kernels;

/**
 * The filled Julia set of {@code z -> z^2 + c} for {@code c = -0.8 + 0.156i} on a width x height grid over
 * [-1.6, 1.6] x [-1, 1], written as object-oriented Java numerics code writes it: with a small complex-number class
 * whose methods make new numbers. Each pixel counts the iterations before |z| exceeds 2, up to {@code maxIter}, and
 * records the argument of the last z ({@code Math.atan2}). The nest makes {@code Complex} objects at every step;
 * acc4j keeps each one's two fields in locals of the thread, so nothing is allocated on the device.
 *
 * <p>Run: {@code java Julia [width [height [maxIter]]]} (defaults 320, 200, 300).
 */
public final class Julia {
    private Julia() {
    }

    /** A complex number whose parts never change once made. */
    static final class Complex {
        final double re;
        final double im;

        Complex(double re, double im) {
            this.re = re;
            this.im = im;
        }

        Complex plus(Complex o) {
            return new Complex(re + o.re, im + o.im);
        }

        Complex squared() {
            return new Complex(re * re - im * im, 2 * re * im);
        }

        double abs2() {
            return re * re + im * im;
        }

        double arg() {
            return Math.atan2(im, re);
        }
    }

    @Kernels
    public static void compute(int[] counts, double[] angles, int width, int height, double cre, double cim,
                               int maxIter) {
        for (int py = 0; py < height; py++) {
            for (int px = 0; px < width; px++) {
                Complex c = new Complex(cre, cim);
                Complex z = new Complex(-1.6 + 3.2 * px / width, -1.0 + 2.0 * py / height);
                int it = 0;
                while (it < maxIter && z.abs2() <= 4.0) {
                    z = z.squared().plus(c);
                    it++;
                }
                counts[py * width + px] = it;
                angles[py * width + px] = z.arg();
            }
        }
    }

    public static void main(String[] args) {
        int width = Report.arg(args, 0, 320);
        int height = Report.arg(args, 1, 200);
        int maxIter = Report.arg(args, 2, 300);
        int[] counts = new int[width * height];
        double[] angles = new double[width * height];
        Report.title("Julia", width + " x " + height + ", at most " + maxIter + " iterations, c = -0.8 + 0.156i");
        long t0 = System.nanoTime();
        compute(counts, angles, width, height, -0.8, 0.156, maxIter);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        long inside = 0;
        long total = 0;
        double turning = 0;
        for (int i = 0; i < counts.length; i++) {
            total += counts[i];
            if (counts[i] == maxIter) {
                inside++;
            }
            turning += angles[i];
        }
        Report.checksum(new Checksum().add(counts).add(angles));
        Report.result("inside", inside);
        Report.result("iterations", total);
        Report.result("angles", turning);
        System.out.printf("  %d of %d pixels inside, %d iterations in all%n", inside, counts.length, total);
        System.out.printf("  time: %.3f s, %.1f M iterations/s%n", seconds, total / seconds * 1e-6);
        String failure = null;
        if (width >= 64 && height >= 64 && maxIter >= 64 && (inside == 0 || inside == counts.length)) {
            failure = "every pixel or none is inside the set: " + inside;
        }
        Report.verification(failure);
    }
}
