package tiny;

import org.acc4j.Kernels;

/** A small class with a {@code @Kernels} method, loaded plainly and through the agent's transformer. */
public class Tiny {
    private long calls;

    @Kernels
    public static double scaleAndSum(double[] a, double[] b, int n, double s) {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            b[i] = a[i] * s + i;
        }
        for (int i = 0; i < n; i++) {
            sum += b[i];
        }
        return sum;
    }

    @Kernels
    public void shifted(double[] a, double[] b, int n, int k) {
        calls++;                      // host code: a field write
        for (int i = 0; i < n; i++) {
            b[i] = a[i + k] * 2;      // k large enough throws ArrayIndexOutOfBoundsException, as Java does
        }
    }

    public long calls() {
        return calls;
    }

    public static int plain(int x) {
        return x + 1;
    }
}
