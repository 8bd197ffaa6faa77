package tiny;

/** A class without {@code @Kernels}: a host loop that calls {@link Tiny}'s, as a time loop in another class would. */
public class TinyLoop {
    public static double repeat(double[] a, double[] b, int n, int times) {
        double sum = 0;
        for (int t = 0; t < times; t++) {
            sum += Tiny.scaleAndSum(a, b, n, 0.5);
            double[] s = a;
            a = b;
            b = s;
        }
        return sum;
    }

    /** The same loop, the host reading an element every other step and writing one each step. */
    public static double watched(double[] a, double[] b, int n, int times) {
        double sum = 0;
        for (int t = 0; t < times; t++) {
            sum += Tiny.scaleAndSum(a, b, n, 0.5);
            if (t % 2 == 0) {
                sum += b[n / 2];
            }
            a[0] = t;
        }
        return sum;
    }
}
