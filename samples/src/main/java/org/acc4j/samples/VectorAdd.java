package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Kernels;

/**
 * c = a + b over doubles. Checks the offloaded result against plain Java element by element, then times a call
 * that moves its data and a call whose data stays on the device.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.VectorAdd [n]}
 */
public final class VectorAdd {
    private VectorAdd() {
    }

    @Kernels
    static void add(double[] a, double[] b, double[] c, int n) {
        for (int i = 0; i < n; i++) {
            c[i] = a[i] + b[i];
        }
    }

    /** The same loop, never offloaded: the reference. */
    static void addPlain(double[] a, double[] b, double[] c, int n) {
        for (int i = 0; i < n; i++) {
            c[i] = a[i] + b[i];
        }
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 24;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Random random = new Random(42);
        double[] a = new double[n];
        double[] b = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = random.nextDouble() * 2 - 1;
            b[i] = random.nextGaussian();
        }
        double[] c = new double[n];
        double[] expected = new double[n];
        Check.header("vector add (double)", n);
        addPlain(a, b, expected, n);
        add(a, b, c, n);
        boolean ok = Check.same("vector add", expected, c);
        double bytes = 3.0 * 8 * n;
        Check.row("plain Java, 1 thread", Check.medianMillis(Math.min(reps, 5), () -> addPlain(a, b, expected, n)), bytes);
        Check.row("call with transfers (copyin a, b; copyout c)", Check.medianMillis(Math.min(reps, 5), () -> add(a, b, c, n)), bytes);
        java.util.Arrays.fill(c, 0);
        Acc.copyin(a, b);
        Acc.create(c);
        add(a, b, c, n);
        Check.row("call on resident data (Acc.copyin / create)", Check.medianMillis(reps, () -> add(a, b, c, n)), bytes);
        Acc.copyout(c);
        Acc.delete(a, b);
        ok &= Check.same("vector add, resident", expected, c);
        System.out.println(ok ? "vector add: all " + n + " elements match plain Java" : "vector add: FAILED");
        if (!ok) {
            System.exit(1);
        }
    }
}
