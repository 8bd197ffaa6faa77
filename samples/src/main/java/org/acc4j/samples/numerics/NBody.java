package org.acc4j.samples.numerics;

import java.util.Random;
import org.acc4j.Kernels;

/**
 * All-pairs gravitational N-body in the manner of the classic GPU demo: each step computes every body's
 * acceleration from all bodies (softened by eps^2, G = 1), updates the velocities, then moves the bodies
 * (symplectic Euler). Bodies start uniformly in the unit ball with small random velocities, the total momentum
 * removed. The total momentum stays zero and the energy drifts little.
 *
 * <p>Run: {@code java NBody [n [steps]]} (defaults 512 bodies, 10 steps of dt = 0.001).
 */
public class NBody {
    static final long SEED = 42L;

    protected final int n;
    protected final double eps2 = 0.01;
    protected final double[] x;
    protected final double[] y;
    protected final double[] z;
    protected final double[] vx;
    protected final double[] vy;
    protected final double[] vz;
    protected final double[] mass;

    public NBody(int n, long seed) {
        this.n = n;
        x = new double[n];
        y = new double[n];
        z = new double[n];
        vx = new double[n];
        vy = new double[n];
        vz = new double[n];
        mass = new double[n];
        Random random = new Random(seed);
        double px = 0.0;
        double py = 0.0;
        double pz = 0.0;
        for (int i = 0; i < n; i++) {
            double rx;
            double ry;
            double rz;
            do {
                rx = random.nextDouble() * 2.0 - 1.0;
                ry = random.nextDouble() * 2.0 - 1.0;
                rz = random.nextDouble() * 2.0 - 1.0;
            } while (rx * rx + ry * ry + rz * rz > 1.0);
            x[i] = rx;
            y[i] = ry;
            z[i] = rz;
            vx[i] = 0.1 * (random.nextDouble() - 0.5);
            vy[i] = 0.1 * (random.nextDouble() - 0.5);
            vz[i] = 0.1 * (random.nextDouble() - 0.5);
            mass[i] = 1.0 / n;
            px += mass[i] * vx[i];
            py += mass[i] * vy[i];
            pz += mass[i] * vz[i];
        }
        for (int i = 0; i < n; i++) {
            vx[i] -= px;
            vy[i] -= py;
            vz[i] -= pz;
        }
    }

    @Kernels
    public void advance(int steps, double dt) {
        for (int step = 0; step < steps; step++) {
            for (int i = 0; i < n; i++) {
                double xi = x[i];
                double yi = y[i];
                double zi = z[i];
                double ax = 0.0;
                double ay = 0.0;
                double az = 0.0;
                for (int j = 0; j < n; j++) {
                    double dx = x[j] - xi;
                    double dy = y[j] - yi;
                    double dz = z[j] - zi;
                    double r2 = dx * dx + dy * dy + dz * dz + eps2;
                    double rinv = 1.0 / Math.sqrt(r2);
                    double s = mass[j] * rinv * rinv * rinv;
                    ax += s * dx;
                    ay += s * dy;
                    az += s * dz;
                }
                vx[i] += dt * ax;
                vy[i] += dt * ay;
                vz[i] += dt * az;
            }
            for (int i = 0; i < n; i++) {
                x[i] += dt * vx[i];
                y[i] += dt * vy[i];
                z[i] += dt * vz[i];
            }
        }
    }

    /** Kinetic plus (softened) potential energy. */
    public double energy() {
        double e = 0.0;
        for (int i = 0; i < n; i++) {
            e += 0.5 * mass[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
            for (int j = i + 1; j < n; j++) {
                double dx = x[j] - x[i];
                double dy = y[j] - y[i];
                double dz = z[j] - z[i];
                e -= mass[i] * mass[j] / Math.sqrt(dx * dx + dy * dy + dz * dz + eps2);
            }
        }
        return e;
    }

    /** The length of the total momentum. */
    public double momentum() {
        double px = 0.0;
        double py = 0.0;
        double pz = 0.0;
        for (int i = 0; i < n; i++) {
            px += mass[i] * vx[i];
            py += mass[i] * vy[i];
            pz += mass[i] * vz[i];
        }
        return Math.sqrt(px * px + py * py + pz * pz);
    }

    public static void main(String[] args) {
        int n = Report.arg(args, 0, 512);
        int steps = Report.arg(args, 1, 10);
        double dt = 0.001;
        NBody bodies = new NBody(n, SEED);
        double e0 = bodies.energy();
        Report.title("NBody", n + " bodies, " + steps + " steps of " + dt);
        long t0 = System.nanoTime();
        bodies.advance(steps, dt);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        double e1 = bodies.energy();
        double p = bodies.momentum();
        double drift = Math.abs((e1 - e0) / e0);
        Report.checksum(new Checksum().add(bodies.x).add(bodies.y).add(bodies.z).add(bodies.vx).add(bodies.vy)
                .add(bodies.vz).add(e0).add(e1).add(p));
        Report.result("energy", e1);
        Report.result("momentum", p);
        System.out.printf("  energy %.12f -> %.12f (relative drift %.3e), |momentum| %.3e%n", e0, e1, drift, p);
        System.out.printf("  time: %.3f s, %.3f ms per step, %.1f M interactions/s%n", seconds,
                1e3 * seconds / Math.max(1, steps), (double) n * n * steps / seconds * 1e-6);
        String failure = !(drift < 1.0e-4) ? "the energy drifted by " + drift
                : !(p < 1.0e-12) ? "the total momentum grew to " + p : null;
        Report.verification(failure);
    }
}
