package org.acc4j.samples.numerics;

import java.util.Random;
import org.acc4j.Kernels;

/**
 * The all-pairs gravitational N-body of {@link NBody}, written as object-oriented Java keeps its bodies: an array of
 * {@code Body} objects with one field per coordinate. The nests read and write the bodies' fields ({@code b[j].x},
 * {@code Body q = b[i]; q.vx += ...}); under the agent each field a nest uses is gathered into an array before each
 * launch and written back into the bodies after it. The bodies start as {@link NBody}'s do, so the two give the same
 * numbers.
 *
 * <p>Run: {@code java Particles [n [steps]]} (defaults 512 bodies, 10 steps of dt = 0.001).
 */
public class Particles {
    /** One body: position, velocity, mass. */
    public static final class Body {
        public double x;
        public double y;
        public double z;
        public double vx;
        public double vy;
        public double vz;
        public double mass;
    }

    final Body[] bodies;
    final double eps2 = 0.01;

    public Particles(int n, long seed) {
        NBody start = new NBody(n, seed);
        bodies = new Body[n];
        for (int i = 0; i < n; i++) {
            Body b = new Body();
            b.x = start.x[i];
            b.y = start.y[i];
            b.z = start.z[i];
            b.vx = start.vx[i];
            b.vy = start.vy[i];
            b.vz = start.vz[i];
            b.mass = start.mass[i];
            bodies[i] = b;
        }
    }

    @Kernels
    public void advance(int steps, double dt) {
        Body[] b = bodies;
        int n = b.length;
        for (int step = 0; step < steps; step++) {
            for (int i = 0; i < n; i++) {
                Body p = b[i];
                double ax = 0.0;
                double ay = 0.0;
                double az = 0.0;
                for (int j = 0; j < n; j++) {
                    double dx = b[j].x - p.x;
                    double dy = b[j].y - p.y;
                    double dz = b[j].z - p.z;
                    double r2 = dx * dx + dy * dy + dz * dz + eps2;
                    double rinv = 1.0 / Math.sqrt(r2);
                    double s = b[j].mass * rinv * rinv * rinv;
                    ax += s * dx;
                    ay += s * dy;
                    az += s * dz;
                }
                p.vx += dt * ax;
                p.vy += dt * ay;
                p.vz += dt * az;
            }
            for (int i = 0; i < n; i++) {
                b[i].x += dt * b[i].vx;
                b[i].y += dt * b[i].vy;
                b[i].z += dt * b[i].vz;
            }
        }
    }

    /** Kinetic plus (softened) potential energy. */
    public double energy() {
        double e = 0.0;
        for (int i = 0; i < bodies.length; i++) {
            Body p = bodies[i];
            e += 0.5 * p.mass * (p.vx * p.vx + p.vy * p.vy + p.vz * p.vz);
            for (int j = i + 1; j < bodies.length; j++) {
                Body q = bodies[j];
                double dx = q.x - p.x;
                double dy = q.y - p.y;
                double dz = q.z - p.z;
                e -= p.mass * q.mass / Math.sqrt(dx * dx + dy * dy + dz * dz + eps2);
            }
        }
        return e;
    }

    /** The length of the total momentum. */
    public double momentum() {
        double px = 0.0;
        double py = 0.0;
        double pz = 0.0;
        for (Body p : bodies) {
            px += p.mass * p.vx;
            py += p.mass * p.vy;
            pz += p.mass * p.vz;
        }
        return Math.sqrt(px * px + py * py + pz * pz);
    }

    public static void main(String[] args) {
        int n = Report.arg(args, 0, 512);
        int steps = Report.arg(args, 1, 10);
        double dt = 0.001;
        Particles p = new Particles(n, NBody.SEED);
        double e0 = p.energy();
        Report.title("Particles", n + " bodies, " + steps + " steps of " + dt);
        long t0 = System.nanoTime();
        p.advance(steps, dt);
        double seconds = (System.nanoTime() - t0) * 1e-9;
        double e1 = p.energy();
        double m = p.momentum();
        double drift = Math.abs((e1 - e0) / e0);
        Checksum sum = new Checksum();
        for (Body b : p.bodies) {
            sum.add(b.x).add(b.y).add(b.z).add(b.vx).add(b.vy).add(b.vz);
        }
        Report.checksum(sum.add(e0).add(e1).add(m));
        Report.result("energy", e1);
        Report.result("momentum", m);
        System.out.printf("  energy %.12f -> %.12f (relative drift %.3e), |momentum| %.3e%n", e0, e1, drift, m);
        System.out.printf("  time: %.3f s, %.3f ms per step, %.1f M interactions/s%n", seconds,
                1e3 * seconds / Math.max(1, steps), (double) n * n * steps / seconds * 1e-6);
        String failure = !(drift < 1.0e-4) ? "the energy drifted by " + drift
                : !(m < 1.0e-12) ? "the total momentum grew to " + m : null;
        Report.verification(failure);
    }
}
