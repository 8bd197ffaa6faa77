package org.acc4j.samples.sites;

import org.acc4j.Kernels;

/** Methods whose nests read and write fields of arrays' objects, for {@link ObjectArraysGpuTest}. */
public final class ObjectArrayGpuFixtures {
    private ObjectArrayGpuFixtures() {
    }

    /** A body: fields of several primitive types. */
    public static class Body {
        public double x;
        public double y;
        public double vx;
        public double vy;
        public float mass;
        public int steps;
    }

    /** A subclass: its inherited fields are the same fields. */
    public static final class Star extends Body {
        public long id;
    }

    /**
     * An N-body step loop: each body's acceleration from every other (reads of all elements' fields), velocities and
     * positions updated in a second nest, host code reading and damping one body between steps.
     */
    @Kernels
    public static double orbit(Body[] b, double[] ax, double[] ay, double dt, int steps) {
        double probe = 0;
        int n = b.length;
        for (int t = 0; t < steps; t++) {
            for (int i = 0; i < n; i++) {
                double sx = 0;
                double sy = 0;
                for (int j = 0; j < n; j++) {
                    double dx = b[j].x - b[i].x;
                    double dy = b[j].y - b[i].y;
                    double inv = 1.0 / Math.sqrt(dx * dx + dy * dy + 0.01);
                    double w = b[j].mass * inv * inv * inv;
                    sx += dx * w;
                    sy += dy * w;
                }
                ax[i] = sx;
                ay[i] = sy;
            }
            for (int i = 0; i < n; i++) {
                Body q = b[i];
                q.vx += dt * ax[i];
                q.vy += dt * ay[i];
                q.x += dt * q.vx;
                q.y += dt * q.vy;
                q.steps++;
            }
            probe += b[t % n].x;
            b[0].vx *= 0.5;
        }
        return probe;
    }

    /** One array of a subclass read, another written, through the subclass's own and inherited fields. */
    @Kernels
    public static void copy(Star[] from, Star[] to, int n) {
        for (int i = 0; i < n; i++) {
            to[i].x = 2 * from[i].x + from[i].y;
            to[i].id = from[i].id * 31 + i;
        }
    }

    /** Each element's own fields: the kernel writes a field of every element it reads. */
    @Kernels
    public static void kick(Body[] b, double dt) {
        for (int i = 0; i < b.length; i++) {
            b[i].vx = b[i].vx - dt * b[i].x * b[i].mass;
            b[i].steps += 1;
        }
    }
}
