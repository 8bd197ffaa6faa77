package org.acc4j.compiler.site;

import org.acc4j.Kernels;

/** Methods whose nests read and write fields of arrays' objects, with host code between them, for {@link ObjectArraySitesTest}. */
final class SiteFixturesObjects {
    private SiteFixturesObjects() {
    }

    static class Body {
        double x;
        double v;
        int steps;
    }

    /**
     * A time loop: velocities from the largest position (a reduction over a field, exact in any order), positions from velocities, host
     * code reading one element's field and writing another's between the nests.
     */
    @Kernels
    static double orbit(Body[] b, double dt, int steps) {
        double probe = 0;
        for (int t = 0; t < steps; t++) {
            double mean = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < b.length; i++) {
                mean = Math.max(mean, b[i].x);
            }
            for (int i = 0; i < b.length; i++) {
                Body q = b[i];
                q.v -= dt * (q.x - mean);
                q.x += dt * q.v;
                q.steps++;
            }
            probe += b[t % b.length].x;
            b[0].v *= 0.5;
        }
        return probe;
    }

    /** Fields into a primitive array and back, through an array held in a field. */
    static Body[] held;

    @Kernels
    static void scale(double[] w, int n) {
        for (int i = 0; i < n; i++) {
            w[i] = held[i].x * 2;
        }
        for (int i = 0; i < n; i++) {
            held[i].v = w[n - 1 - i];
        }
    }
}
