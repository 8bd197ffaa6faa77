package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;

/**
 * The dot product and the max norm ({@link Reduce#dot}, {@link Reduce#maxNorm}): unmarked reductions that the
 * compiler finds, combined on the device by the reduction templates, with only the result copied back. Checks
 * each against plain Java (the max norm exactly; the sum within the bound of n roundings), then times them on
 * resident data and with transfers.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Dot [n] [reps]}
 */
public final class Dot {
    private Dot() {
    }

    public static double dotPlain(double[] a, double[] b, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    static double maxNormPlain(double[] a, int n) {
        double m = 0;
        for (int i = 0; i < n; i++) {
            m = Math.max(m, Math.abs(a[i]));
        }
        return m;
    }

    public static void main(String[] args) {
        int n = Check.arg(args, 0, 1 << 24);
        int reps = Check.arg(args, 1, 20);
        Random random = new Random(42);
        double[] a = Check.random(random, n);
        double[] b = Check.random(random, n);
        Check.header("dot product and max norm (double)", n);
        double expected = dotPlain(a, b, n);
        double norm = maxNormPlain(a, n);
        double sumAbs = 0;
        for (int i = 0; i < n; i++) {
            sumAbs += Math.abs(a[i] * b[i]);
        }
        double bound = n * 0x1p-53 / (1 - n * 0x1p-53) * sumAbs * 2;
        double got = Reduce.dot(a, b, n);
        double gotNorm = Reduce.maxNorm(a, n);
        boolean ok = Math.abs(got - expected) <= bound && gotNorm == norm;
        System.out.printf("dot %.17g (Java %.17g, |difference| %.3g, bound %.3g); max norm %s (Java %s)%n", got,
                expected, Math.abs(got - expected), bound, gotNorm, norm);
        double dotBytes = 2.0 * 8 * n;
        double normBytes = 8.0 * n;
        Check.row("dot, plain Java, 1 thread", Check.medianMillis(Math.min(reps, 5), () -> dotPlain(a, b, n)), dotBytes);
        Check.row("dot, call with transfers (copyin a, b)", Check.medianMillis(Math.min(reps, 5), () -> Reduce.dot(a, b, n)),
                dotBytes);
        Acc.copyin(a, b);
        double resident = Reduce.dot(a, b, n);
        Check.row("dot, call on resident data (Acc.copyin)", Check.medianMillis(reps, () -> Reduce.dot(a, b, n)), dotBytes);
        Check.row("max norm, call on resident data", Check.medianMillis(reps, () -> Reduce.maxNorm(a, n)), normBytes);
        ok &= resident == got && Reduce.maxNorm(a, n) == norm;
        Acc.delete(a, b);
        System.out.println(ok ? "dot: the results match plain Java (the sum within its bound, the same bits each call)"
                : "dot: FAILED");
        if (!ok) {
            System.exit(1);
        }
    }
}
