package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Kernels;

/**
 * Prefix scans written as plain loops ({@code s += a[i]; b[i] = s;}), which the compiler detects and runs as its
 * one-pass device scan, timed on resident data against a device-to-device copy of the same bytes in the same
 * process: a copy kernel ({@code b[i] = a[i]}) and, where the driver can be reached, {@code cuMemcpyDtoD}. Checks
 * each scan against plain Java first: the long scans bit for bit, the double sum (regrouped, {@code relaxed}) within
 * the bound of its roundings. The ratio column is the copy kernel's time over the row's: 1 is the copy's bandwidth.
 *
 * <p>Run: {@code java -Xmx12g -javaagent:acc.jar -cp samples.jar org.acc4j.samples.ScanBench [n] [reps]} (n defaults
 * to 2^27).
 */
public final class ScanBench {
    private ScanBench() {
    }

    @Kernels
    static void inclusiveLong(long[] a, long[] b, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
            b[i] = s;
        }
    }

    @Kernels
    static void exclusiveLong(long[] a, long[] b, int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            b[i] = s;
            s += a[i];
        }
    }

    @Kernels
    static void maxLong(long[] a, long[] b, int n) {
        long s = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            s = Math.max(s, a[i]);
            b[i] = s;
        }
    }

    @Kernels(relaxed = true)
    static void inclusiveDouble(double[] a, double[] b, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i];
            b[i] = s;
        }
    }

    @Kernels
    static void copyLong(long[] a, long[] b, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i];
        }
    }

    @Kernels
    static void copyDouble(double[] a, double[] b, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i];
        }
    }

    public static void main(String[] args) {
        int n = Check.arg(args, 0, 1 << 27);
        int reps = Check.arg(args, 1, 20);
        Check.header("prefix scans against a device copy", n);
        boolean ok = longs(n, reps);
        ok &= doubles(n, reps);
        Check.verdict("ScanBench", ok, n);
    }

    private static void row(String mode, double ms, double bytes, double copyMs) {
        System.out.printf("  %-50s %10.3f ms %10.1f GB/s %8.3f of the copy%n", mode, ms, bytes / ms / 1e6, copyMs / ms);
    }

    private static boolean longs(int n, int reps) {
        Random r = new Random(27);
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextLong() >> 8;
        }
        long[] b = new long[n];
        long[] expected = new long[n];
        Acc.copyin(a);
        Acc.create(b);
        boolean ok = true;
        String[] names = {"inclusive + (long)", "exclusive + (long)", "inclusive max (long)"};
        for (int k = 0; k < 3; k++) {
            run(k, a, b, n);
            Acc.updateHost(b);
            runPlain(k, a, expected, n);
            boolean same = java.util.Arrays.equals(expected, b);
            System.out.println("  " + names[k] + ": " + (same ? "bit for bit Java's" : "DIFFERS from Java"));
            ok &= same;
        }
        double bytes = 16.0 * n;
        double copy = Check.medianMillis(reps, () -> copyLong(a, b, n));
        row("copy kernel b[i] = a[i] (long)", copy, bytes, copy);
        double memcpy = memcpy(a, b, 8L * n, reps);
        if (memcpy > 0) {
            row("cuMemcpyDtoD (long)", memcpy, bytes, copy);
        }
        for (int k = 0; k < 3; k++) {
            int kk = k;
            row("scan, " + names[k], Check.medianMillis(reps, () -> run(kk, a, b, n)), bytes, copy);
        }
        Acc.delete(a, b);
        return ok;
    }

    private static void run(int k, long[] a, long[] b, int n) {
        switch (k) {
            case 0 -> inclusiveLong(a, b, n);
            case 1 -> exclusiveLong(a, b, n);
            default -> maxLong(a, b, n);
        }
    }

    private static void runPlain(int k, long[] a, long[] b, int n) {
        long s = k == 2 ? Long.MIN_VALUE : 0;
        for (int i = 0; i < n; i++) {
            if (k == 1) {
                b[i] = s;
            }
            s = k == 2 ? Math.max(s, a[i]) : s + a[i];
            if (k != 1) {
                b[i] = s;
            }
        }
    }

    private static boolean doubles(int n, int reps) {
        Random r = new Random(28);
        double[] a = Check.random(r, n);
        double[] b = new double[n];
        Acc.copyin(a);
        Acc.create(b);
        inclusiveDouble(a, b, n);
        Acc.updateHost(b);
        // a regrouped sum: |error| <= (i + 1) * 2^-53 / (1 - (i + 1) * 2^-53) * sum of |a[j]| up to i, twice
        double s = 0;
        double abs = 0;
        double worst = 0;
        boolean ok = true;
        for (int i = 0; i < n; i++) {
            s += a[i];
            abs += Math.abs(a[i]);
            double k = (i + 1) * 0x1p-53;
            double bound = 2 * k / (1 - k) * abs;
            double err = Math.abs(b[i] - s);
            worst = Math.max(worst, bound == 0 ? 0 : err / bound);
            ok &= err <= bound;
        }
        System.out.printf("  inclusive + (double, relaxed): %s (worst error %.3g of its bound)%n",
                ok ? "within the bound of its roundings" : "OUTSIDE the bound", worst);
        double bytes = 16.0 * n;
        double copy = Check.medianMillis(reps, () -> copyDouble(a, b, n));
        row("copy kernel b[i] = a[i] (double)", copy, bytes, copy);
        double memcpy = memcpy(a, b, 8L * n, reps);
        if (memcpy > 0) {
            row("cuMemcpyDtoD (double)", memcpy, bytes, copy);
        }
        row("scan, inclusive + (double, relaxed)", Check.medianMillis(reps, () -> inclusiveDouble(a, b, n)), bytes,
                copy);
        Acc.delete(a, b);
        return ok;
    }

    /**
     * The median time of {@code cuMemcpyDtoD} between the two arrays' device copies, through the JCuda classes the
     * agent carries, with the runtime's context current on this thread; 0 where they cannot be reached.
     */
    private static double memcpy(Object from, Object to, long bytes, int reps) {
        long src = Acc.deviceptr(from);
        long dst = Acc.deviceptr(to);
        if (src == 0 || dst == 0) {
            return 0;
        }
        try {
            Class<?> driver = Class.forName("jcuda.driver.JCudaDriver");
            Class<?> ptr = Class.forName("jcuda.driver.CUdeviceptr");
            Object base = ptr.getConstructor().newInstance();
            java.lang.reflect.Method offset = ptr.getMethod("withByteOffset", long.class);
            Object s = offset.invoke(base, src);
            Object d = offset.invoke(base, dst);
            java.lang.reflect.Method copy = driver.getMethod("cuMemcpyDtoD", ptr, ptr, long.class);
            java.lang.reflect.Method sync = driver.getMethod("cuCtxSynchronize");
            if ((Integer) copy.invoke(null, d, s, bytes) != 0 || (Integer) sync.invoke(null) != 0) {
                return 0;
            }
            return Check.medianMillis(reps, () -> {
                try {
                    copy.invoke(null, d, s, bytes);
                    sync.invoke(null);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            });
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            System.out.println("  (cuMemcpyDtoD not timed: " + e + ")");
            return 0;
        }
    }
}
