package org.acc4j.samples.numerics;

import org.acc4j.Kernels;

/**
 * The first Fourier coefficients of f(x) = (x + 1)^x on [0, 2], each by the trapezoid rule, in the manner of the
 * classic Java benchmark series: an instance method per step, none of them final or private (a subclass could
 * override them), the integrand chosen by an {@code int} switch. Nothing for acc4j but {@code @Kernels}: the
 * overridable helpers are expanded into the kernel, and each call checks that the object's class does not override
 * them (a subclass that does runs the call as plain Java).
 *
 * <p>Run: {@code java FourierSeries [n [steps]]} (defaults 2000 coefficients, 1000 steps): verifies the mean term
 * against Simpson's rule with ten times the steps, and that every coefficient is finite and at most the integral of
 * |f| (twice the mean term) in magnitude, as the rule's positive weights keep it (at k = steps the samples alias to
 * that bound).
 */
public class FourierSeries {
    protected final int count;
    protected final int steps;
    /** Row 0: the cosine coefficients a(k), row 1: the sine coefficients b(k); b(0) is 0. */
    protected final double[][] coefficients;

    public FourierSeries(int count, int steps) {
        this.count = count;
        this.steps = steps;
        this.coefficients = new double[2][count];
    }

    @Kernels
    public void compute() {
        coefficients[0][0] = integrate(0.0, 2.0, steps, 0.0, 0) / 2.0;
        double omega = Math.PI;
        for (int k = 1; k < count; k++) {
            coefficients[0][k] = integrate(0.0, 2.0, steps, omega * k, 1);
            coefficients[1][k] = integrate(0.0, 2.0, steps, omega * k, 2);
        }
    }

    /** The trapezoid rule over [x0, x1] in {@code n} steps of the integrand {@code select} at frequency w. */
    double integrate(double x0, double x1, int n, double w, int select) {
        double dx = (x1 - x0) / n;
        double sum = (integrand(x0, w, select) + integrand(x1, w, select)) / 2.0;
        double x = x0;
        for (int i = 1; i < n; i++) {
            x += dx;
            sum += integrand(x, w, select);
        }
        return sum * dx;
    }

    double integrand(double x, double w, int select) {
        double f = Math.pow(x + 1.0, x);
        switch (select) {
            case 1:
                return f * Math.cos(w * x);
            case 2:
                return f * Math.sin(w * x);
            default:
                return f;
        }
    }

    /** Null when the coefficients satisfy the properties the class comment names. */
    public String verify() {
        int n = 10 * steps;
        double h = 2.0 / n;
        double simpson = Math.pow(1.0, 0.0) + Math.pow(3.0, 2.0);
        for (int i = 1; i < n; i++) {
            double x = i * h;
            simpson += (i % 2 == 1 ? 4 : 2) * Math.pow(x + 1.0, x);
        }
        double mean = simpson * h / 3.0 / 2.0;
        double a0 = coefficients[0][0];
        if (!(Math.abs(a0 - mean) <= 1e-4 * mean)) {
            return "the mean term " + a0 + " differs from Simpson's " + mean;
        }
        for (int r = 0; r < 2; r++) {
            for (int k = 0; k < count; k++) {
                double c = coefficients[r][k];
                if (!Double.isFinite(c) || Math.abs(c) > 2 * a0 * (1 + 1e-12)) {
                    return "coefficient " + (r == 0 ? "a(" : "b(") + k + ") = " + c + " is not finite or exceeds the"
                            + " integral of |f|, 2 a(0)";
                }
            }
        }
        return null;
    }

    public static void main(String[] args) {
        int count = Report.arg(args, 0, 2000);
        int steps = Report.arg(args, 1, 1000);
        FourierSeries s = new FourierSeries(count, steps);
        Report.title("FourierSeries", count + " coefficients, " + steps + " steps");
        long t0 = System.nanoTime();
        s.compute();
        double seconds = (System.nanoTime() - t0) * 1e-9;
        Report.checksum(new Checksum().add(s.coefficients));
        Report.result("a0", s.coefficients[0][0]);
        Report.result("a1", s.coefficients[0][1]);
        Report.result("b1", s.coefficients[1][1]);
        System.out.printf("  a(0) = %.12f, a(1) = %.12f, b(1) = %.12f, time: %.3f s%n", s.coefficients[0][0],
                s.coefficients[0][1], s.coefficients[1][1], seconds);
        Report.verification(s.verify());
    }
}
