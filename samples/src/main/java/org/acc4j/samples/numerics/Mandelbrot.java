package org.acc4j.samples.numerics;

import org.acc4j.Kernels;

/**
 * The Mandelbrot set on a width x height grid over [-2, 0.5] x [-1.25, 1.25]: each pixel counts the iterations of
 * {@code z = z^2 + c} before |z| exceeds 2, up to {@code maxIter}. The pixels that reach maxIter estimate the set's
 * area (about 1.5066).
 *
 * <p>Run: {@code java Mandelbrot [width [height [maxIter]]]} (defaults 256, 256, 256).
 */
public final class Mandelbrot {
    private Mandelbrot() {
    }

    @Kernels
    public static void compute(int[] counts, int width, int height, double xmin, double ymin, double dx, double dy,
                               int maxIter) {
        for (int py = 0; py < height; py++) {
            for (int px = 0; px < width; px++) {
                double cr = xmin + px * dx;
                double ci = ymin + py * dy;
                double x = 0.0;
                double y = 0.0;
                int it = 0;
                while (x * x + y * y <= 4.0 && it < maxIter) {
                    double xt = x * x - y * y + cr;
                    y = 2.0 * x * y + ci;
                    x = xt;
                    it++;
                }
                counts[py * width + px] = it;
            }
        }
    }

    public static void main(String[] args) {
        int width = Report.arg(args, 0, 256);
        int height = Report.arg(args, 1, 256);
        int maxIter = Report.arg(args, 2, 256);
        double xmin = -2.0;
        double ymin = -1.25;
        double dx = 2.5 / width;
        double dy = 2.5 / height;
        int[] counts = new int[width * height];
        Report.title("Mandelbrot", width + " x " + height + ", at most " + maxIter + " iterations");
        long t0 = System.nanoTime();
        compute(counts, width, height, xmin, ymin, dx, dy, maxIter);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        long inside = 0;
        long total = 0;
        for (int c : counts) {
            total += c;
            if (c == maxIter) {
                inside++;
            }
        }
        double area = inside * dx * dy;
        Report.checksum(new Checksum().add(counts));
        Report.result("inside", inside);
        Report.result("iterations", total);
        System.out.printf("  %d pixels inside, area %.4f (the set's is about 1.5066), %d iterations in all%n", inside,
                area, total);
        System.out.printf("  time: %.3f s, %.1f M iterations/s%n", seconds, total / seconds * 1e-6);
        String failure = null;
        if (width >= 64 && height >= 64 && maxIter >= 64 && !(area > 1.40 && area < 1.70)) {
            failure = "the area " + area + " is far from 1.5066";
        }
        Report.verification(failure);
    }
}
