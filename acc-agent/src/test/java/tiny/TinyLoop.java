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
}
