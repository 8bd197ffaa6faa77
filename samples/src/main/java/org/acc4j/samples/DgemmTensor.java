package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Data;
import org.acc4j.Kernels;

/**
 * c = a · b in double precision with FP64 tensor cores: the same nest as {@link Dgemm}'s, under
 * {@code @Kernels(relaxed = true)}, which on sm_90 and later lets the compiler multiply with
 * {@code mma.sync m16n8k4}, k8 or k16 (the shape is {@code ACC4J_TENSOR_TILE}'s). Each product is then fused with
 * the running sum, so c differs from the plain Java product in the last bits; the sample checks every compared
 * element against the bound
 * {@code |c - java| <= 2 (n + 1) 2^-53 sum_k |a_ik b_kj|}.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.DgemmTensor [n [reps]]}: the time of
 * the tensor-core product and of the exact tiled one ({@code Dgemm.multiply}) on resident data.
 */
public final class DgemmTensor {
    private DgemmTensor() {
    }

    @Kernels(relaxed = true)
    static void multiply(double[] a, double[] b, double[] c, int m, int n, int p) {
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < p; k++) {
                    s += a[i * p + k] * b[k * n + j];
                }
                c[i * n + j] = s;
            }
        }
    }

    /** Median milliseconds of the tensor-core product ({@code relaxed}) or the exact one, on resident data. */
    @Data(copyin = {"a", "b"}, create = "c")
    static double timeResident(boolean relaxed, double[] a, double[] b, double[] c, int n, int reps) {
        return Check.medianMillis(reps, () -> {
            if (relaxed) {
                multiply(a, b, c, n, n, n);
            } else {
                Dgemm.multiply(a, b, c, n, n, n);
            }
            Acc.waitAll();
        });
    }

    /** Whether the elements {@code at} of {@code c} lie within the bound around the plain dot products. */
    static boolean withinBound(double[] a, double[] b, double[] c, int n, int[] at) {
        double u = Math.ulp(1.0) / 2;
        for (int e : at) {
            int i = e / n;
            int j = e % n;
            double s = 0.0;
            double mag = 0.0;
            for (int k = 0; k < n; k++) {
                s += a[i * n + k] * b[k * n + j];
                mag += Math.abs(a[i * n + k] * b[k * n + j]);
            }
            if (Math.abs(c[e] - s) > 2 * (n + 1) * u * mag) {
                System.out.printf("dgemm tensor cores: element (%d, %d) is %s, plain Java %s, beyond the bound%n", i, j,
                        c[e], s);
                return false;
            }
        }
        return true;
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int n = Check.arg(args, 0, gpu ? 4096 : 256);
        int reps = Check.arg(args, 1, gpu ? 5 : 2);
        Random random = new Random(4097);
        double[] a = Check.random(random, n * n);
        double[] b = Check.random(random, n * n);
        Check.header("DGEMM c = a * b with FP64 tensor cores (@Kernels(relaxed = true))", n + " x " + n);
        double[] c = new double[n * n];
        multiply(a, b, c, n, n, n);
        int[] at = new int[Math.min(n * n, 20_000)];
        Random pick = new Random(4098);
        for (int e = 0; e < at.length; e++) {
            at[e] = at.length == n * n ? e : pick.nextInt(n * n);
        }
        boolean ok = withinBound(a, b, c, n, at);
        double flops = 2.0 * n * n * n;
        Check.rowFlops("flat relaxed (tensor cores)", timeResident(true, a, b, c, n, reps), flops);
        Check.rowFlops("flat default (exact, register-tiled)", timeResident(false, a, b, c, n, reps), flops);
        System.out.println("  (median of " + reps + " calls on resident data)");
        System.out.println(ok ? "dgemm tensor cores: all " + at.length + " compared elements within the bound"
                : "dgemm tensor cores: FAILED");
        if (!ok) {
            System.exit(1);
        }
    }
}
