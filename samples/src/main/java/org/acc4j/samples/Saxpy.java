package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * y = alpha * x + y over floats, with an explicit mapping. Checks against plain Java element by element, then
 * times a call that moves its data and a call whose data stays on the device.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.Saxpy [n]}
 */
public final class Saxpy {
    private Saxpy() {
    }

    @Kernels
    static void saxpy(float alpha, float[] x, float[] y, int n) {
        for (@Loop(gang = Loop.AUTO, vector = 256) int i = 0; i < n; i++) {
            y[i] = alpha * x[i] + y[i];
        }
    }

    static void saxpyPlain(float alpha, float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            y[i] = alpha * x[i] + y[i];
        }
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 24;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Random random = new Random(7);
        float[] x = new float[n];
        float[] y0 = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextFloat() * 4 - 2;
            y0[i] = (float) random.nextGaussian();
        }
        float alpha = 1.75f;
        float[] y = y0.clone();
        float[] expected = y0.clone();
        Check.header("SAXPY (float)", n);
        saxpyPlain(alpha, x, expected, n);
        saxpy(alpha, x, y, n);
        boolean ok = Check.same("saxpy", expected, y);
        double bytes = 3.0 * 4 * n;
        float[] scratch = y0.clone();
        Check.row("plain Java, 1 thread", Check.medianMillis(Math.min(reps, 5), () -> saxpyPlain(alpha, x, scratch, n)), bytes);
        Check.row("call with transfers (copyin x; copy y)", Check.medianMillis(Math.min(reps, 5), () -> saxpy(alpha, x, scratch, n)), bytes);
        // resident: run reps+1 times on the device and compare with reps+1 plain runs
        float[] yr = y0.clone();
        float[] er = y0.clone();
        Acc.copyin(x, yr);
        saxpy(alpha, x, yr, n);
        saxpyPlain(alpha, x, er, n);
        int[] runs = {0};
        Check.row("call on resident data (Acc.copyin)", Check.medianMillis(reps, () -> {
            saxpy(alpha, x, yr, n);
            runs[0]++;
        }), bytes);
        for (int r = 0; r < runs[0]; r++) {
            saxpyPlain(alpha, x, er, n);
        }
        Acc.copyout(yr);
        Acc.delete(x);
        ok &= Check.same("saxpy, resident", er, yr);
        System.out.println(ok ? "saxpy: all " + n + " elements match plain Java" : "saxpy: FAILED");
        if (!ok) {
            System.exit(1);
        }
    }
}
