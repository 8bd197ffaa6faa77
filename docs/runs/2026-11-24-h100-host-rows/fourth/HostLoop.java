import org.acc4j.Kernels;
public class HostLoop {
    @Kernels
    static double run(double[] x, double[] y, int[] k, int n, int reps) {
        double s = 0;
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] * 0.5 + y[i];
            }
            // host code: a loop the device does not take (a call it refuses), reading and writing two arrays
            for (int i = 0; i < n; i++) {
                s += Math.IEEEremainder(x[i], 3.0) + y[i];
                y[i] = y[i] * 0.999;
                k[i % 16] += 1;
            }
        }
        return s;
    }
    public static void main(String[] a) {
        int n = 1 << 20;
        for (int round = 0; round < 3; round++) {
            double[] x = new double[n], y = new double[n];
            int[] k = new int[16];
            for (int i = 0; i < n; i++) { x[i] = i % 7; y[i] = i % 5; }
            long t0 = System.nanoTime();
            double s = run(x, y, k, n, 5);
            System.out.printf("HostLoop round %d: %.1f ms, s=%.6e x[7]=%.6e y[9]=%.6e k[3]=%d%n", round, (System.nanoTime() - t0) / 1e6, s, x[7], y[9], k[3]);
        }
    }
}
