package org.acc4j.samples.multicore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.acc4j.Kernels;
import org.acc4j.runtime.AccRuntime;

/**
 * Run under the agent on the multicore target by {@link MulticorePathTest}: many threads call {@code @Kernels}
 * methods at once, each result compared with plain Java bit for bit; nests whose chunks throw give Java's exception
 * and message and write nothing. Prints one line per check and exits with 1 at the first mismatch.
 */
public final class MulticoreStress {
    private MulticoreStress() {
    }

    @Kernels
    static void scale(double[] a, double[] b, double f) {
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i] * f + i;
        }
    }

    static void scalePlain(double[] a, double[] b, double f) {
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i] * f + i;
        }
    }

    @Kernels
    static long sumSquares(int[] x) {
        long s = 0;
        for (int i = 0; i < x.length; i++) {
            s += (long) x[i] * x[i];
        }
        return s;
    }

    @Kernels
    static double dot(double[] x, double[] y) {
        double s = 0;
        for (int i = 0; i < x.length; i++) {
            s += x[i] * y[i];
        }
        return s;
    }

    @Kernels
    static void gather(double[] out, double[] in, int[] idx) {
        for (int i = 0; i < out.length; i++) {
            out[i] = in[idx[i]] * 2;
        }
    }

    static void gatherPlain(double[] out, double[] in, int[] idx) {
        for (int i = 0; i < out.length; i++) {
            out[i] = in[idx[i]] * 2;
        }
    }

    @Kernels
    static void divide(int[] out, int[] a, int[] d) {
        for (int i = 0; i < out.length; i++) {
            out[i] = a[i] / d[i];
        }
    }

    static void dividePlain(int[] out, int[] a, int[] d) {
        for (int i = 0; i < out.length; i++) {
            out[i] = a[i] / d[i];
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int calls = Integer.parseInt(args[1]);
        ExecutorService ex = Executors.newFixedThreadPool(threads);
        List<Future<String>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = 1000 + t;
            results.add(ex.submit(() -> stress(seed, calls)));
        }
        for (Future<String> f : results) {
            String failure = f.get();
            if (failure != null) {
                System.out.println("stress: FAILED: " + failure);
                System.exit(1);
            }
        }
        ex.shutdown();
        System.out.println("stress: " + threads + " threads x " + calls + " calls match plain Java");
        exceptions();
        long[] scaleStats = AccRuntime.get().sites().stats(AccRuntime.get().sites().find(MulticoreStress.class.getName(),
                "scale"));
        System.out.println("scale: " + scaleStats[0] + " nests on the multicore target, " + scaleStats[1] + " as plain Java");
        System.out.println("running on: " + org.acc4j.Acc.deviceName());
    }

    private static String stress(long seed, int calls) {
        Random r = new Random(seed);
        for (int c = 0; c < calls; c++) {
            int n = 1 + r.nextInt(50_000);
            double[] a = new double[n];
            int[] x = new int[n];
            for (int i = 0; i < n; i++) {
                a[i] = r.nextGaussian();
                x[i] = r.nextInt();
            }
            double f = r.nextDouble();
            double[] b = new double[n];
            double[] expected = new double[n];
            scale(a, b, f);
            scalePlain(a, expected, f);
            if (!Arrays.equals(b, expected)) {
                return "scale, seed " + seed + ", call " + c;
            }
            long s = 0;
            for (int i = 0; i < n; i++) {
                s += (long) x[i] * x[i];
            }
            if (sumSquares(x) != s) {
                return "sumSquares, seed " + seed + ", call " + c;
            }
            double d1 = dot(a, b);
            double d2 = dot(a, b);
            if (Double.doubleToRawLongBits(d1) != Double.doubleToRawLongBits(d2)) {
                return "dot gave two values for one input: " + d1 + " and " + d2;
            }
            double plain = 0;
            for (int i = 0; i < n; i++) {
                plain += a[i] * b[i];
            }
            if (Math.abs(d1 - plain) > 1e-9 * Math.max(1, Math.abs(plain)) * Math.sqrt(n)) {
                return "dot " + d1 + " against plain Java's " + plain;
            }
        }
        return null;
    }

    private static void exceptions() {
        int n = 100_000;
        double[] in = new double[n];
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            in[i] = i;
            idx[i] = (i * 7) % n;
        }
        // two bad indices in different chunks: Java's exception is the first in iteration order
        idx[n - 10] = n + 5;
        idx[n / 2 + 3] = -4;
        double[] out = new double[n];
        Arrays.fill(out, 1.5);
        double[] plainOut = out.clone();
        Throwable expected = threw(() -> gatherPlain(plainOut, in, idx));
        Throwable actual = threw(() -> gather(out, in, idx));
        check("gather", expected, actual);
        for (double v : out) {
            if (v != 1.5) {
                System.out.println("exceptions: FAILED: gather wrote into out before it threw");
                System.exit(1);
            }
        }
        int[] a = new int[n];
        int[] d = new int[n];
        Arrays.fill(a, 7);
        Arrays.fill(d, 3);
        d[n - 1] = 0;
        int[] q = new int[n];
        check("divide", threw(() -> dividePlain(new int[n], a, d)), threw(() -> divide(q, a, d)));
        if (Arrays.stream(q).anyMatch(v -> v != 0)) {
            System.out.println("exceptions: FAILED: divide wrote into out before it threw");
            System.exit(1);
        }
        d[n - 1] = 3;
        divide(q, a, d);
        if (Arrays.stream(q).anyMatch(v -> v != 2)) {
            System.out.println("exceptions: FAILED: divide without a zero");
            System.exit(1);
        }
        System.out.println("exceptions: " + expected);
    }

    private static void check(String what, Throwable expected, Throwable actual) {
        if (expected == null || actual == null || expected.getClass() != actual.getClass()
                || !Objects.equals(expected.getMessage(), actual.getMessage())) {
            System.out.println("exceptions: FAILED: " + what + " threw " + actual + ", plain Java " + expected);
            System.exit(1);
        }
    }

    private static Throwable threw(Runnable r) {
        try {
            r.run();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }
}
