package org.acc4j.samples;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Colouring;
import org.acc4j.Data;
import org.acc4j.Kernels;
import org.acc4j.Loop;

/**
 * An edge loop over an unstructured mesh in the style of Airfoil's flux residual: each edge reads the flow state of
 * the two cells on its sides, computes an Euler flux with artificial dissipation, and adds it into one cell and
 * subtracts it from the other ({@code res[c1[e]] += f; res[c2[e]] -= f;}). Two edges that share a cell would race,
 * so a plain edge loop stays on the host. The two strategies that G. D. Balogh, I. Z. Reguly and G. R. Mudalige,
 * <i>Comparison of Parallelisation Approaches, Languages, and Compilers for Unstructured Mesh Algorithms on
 * GPUs</i>, compare for such increments:
 * <ul>
 *   <li>atomics ({@link #fluxAtomic}): {@code @Loop(increments = Loop.Increments.ATOMIC)} on the edge loop, and the
 *       compiler turns each indirect increment into an atomic add, one launch over all edges;
 *   <li>colouring by the runtime ({@link #fluxRuntimeColour}): {@code @Loop(increments = Loop.Increments.COLOUR)} on
 *       the edge loop; the runtime colours the edges so that no two edges of a colour share a cell (kept while the
 *       maps are unchanged) and launches once per colour, with plain adds;
 *   <li>colouring by the user ({@link #fluxColour}): {@link Colouring} colours the edges, and the edges of each colour
 *       run in one call, under {@code @Loop(independent = true)}.
 * </ul>
 * The mesh is generated: the cells of an {@code nx} x {@code ny} grid of perturbed quadrilaterals, the edges its
 * interior faces, with a smooth random flow. The sums of each cell come out in another order than Java's, so the
 * check is the bound of a reordered sum: {@code |device - Java| <= 2 k eps sum |f|} per cell and component, over
 * its {@code k} fluxes.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar org.acc4j.samples.EdgeFlux [cells [reps]]}
 */
public final class EdgeFlux {
    static final double GM1 = 0.4;
    static final double EPS = 0.05;

    private EdgeFlux() {
    }

    /** The mesh: the cells on either side of each edge, the edge's vector, each cell's state (4 values) and time step. */
    public record Mesh(int cells, int edges, int[] c1, int[] c2, double[] ex, double[] ey, double[] q, double[] adt) {
    }

    /** An {@code nx} x {@code ny} grid's interior faces as edges, the nodes perturbed by up to 20% of a cell. */
    public static Mesh generate(int nx, int ny, long seed) {
        Random random = new Random(seed);
        int cells = nx * ny;
        int edges = (nx - 1) * ny + nx * (ny - 1);
        int[] c1 = new int[edges];
        int[] c2 = new int[edges];
        double[] ex = new double[edges];
        double[] ey = new double[edges];
        int e = 0;
        for (int j = 0; j < ny; j++) {
            for (int i = 0; i < nx; i++) {
                int c = j * nx + i;
                if (i + 1 < nx) {
                    c1[e] = c;
                    c2[e] = c + 1;
                    ex[e] = 0.2 * (random.nextDouble() - 0.5);
                    ey[e++] = 1 + 0.2 * (random.nextDouble() - 0.5);
                }
                if (j + 1 < ny) {
                    c1[e] = c;
                    c2[e] = c + nx;
                    ex[e] = -1 - 0.2 * (random.nextDouble() - 0.5);
                    ey[e++] = 0.2 * (random.nextDouble() - 0.5);
                }
            }
        }
        double[] q = new double[4 * cells];
        double[] adt = new double[cells];
        for (int c = 0; c < cells; c++) {
            double x = (double) (c % nx) / nx;
            double y = (double) (c / nx) / ny;
            q[4 * c] = 1 + 0.1 * Math.sin(6 * x) + 0.01 * random.nextDouble();
            q[4 * c + 1] = 0.5 + 0.1 * Math.cos(5 * y);
            q[4 * c + 2] = 0.05 * Math.sin(3 * x + 2 * y);
            q[4 * c + 3] = 2.5 + 0.1 * random.nextDouble();
            adt[c] = 1 + random.nextDouble();
        }
        return new Mesh(cells, edges, c1, c2, ex, ey, q, adt);
    }

    /** The 4 fluxes of edge {@code e} into {@code f}, as the kernels compute them. */
    static void fluxes(Mesh m, int e, double[] f) {
        int a = m.c1()[e];
        int b = m.c2()[e];
        double[] q = m.q();
        double dx = m.ex()[e];
        double dy = m.ey()[e];
        double ra = 1 / q[4 * a];
        double pa = GM1 * (q[4 * a + 3] - 0.5 * ra * (q[4 * a + 1] * q[4 * a + 1] + q[4 * a + 2] * q[4 * a + 2]));
        double va = ra * (q[4 * a + 1] * dy - q[4 * a + 2] * dx);
        double rb = 1 / q[4 * b];
        double pb = GM1 * (q[4 * b + 3] - 0.5 * rb * (q[4 * b + 1] * q[4 * b + 1] + q[4 * b + 2] * q[4 * b + 2]));
        double vb = rb * (q[4 * b + 1] * dy - q[4 * b + 2] * dx);
        double mu = 0.5 * (m.adt()[a] + m.adt()[b]) * EPS;
        f[0] = 0.5 * (va * q[4 * a] + vb * q[4 * b]) + mu * (q[4 * a] - q[4 * b]);
        f[1] = 0.5 * (va * q[4 * a + 1] + pa * dy + vb * q[4 * b + 1] + pb * dy) + mu * (q[4 * a + 1] - q[4 * b + 1]);
        f[2] = 0.5 * (va * q[4 * a + 2] - pa * dx + vb * q[4 * b + 2] - pb * dx) + mu * (q[4 * a + 2] - q[4 * b + 2]);
        f[3] = 0.5 * (va * (q[4 * a + 3] + pa) + vb * (q[4 * b + 3] + pb)) + mu * (q[4 * a + 3] - q[4 * b + 3]);
    }

    /** Plain Java, the reference: the edges in order. */
    public static void fluxPlain(Mesh m, double[] res) {
        double[] f = new double[4];
        for (int e = 0; e < m.edges(); e++) {
            fluxes(m, e, f);
            for (int k = 0; k < 4; k++) {
                res[4 * m.c1()[e] + k] += f[k];
                res[4 * m.c2()[e] + k] -= f[k];
            }
        }
    }

    /** Atomics: every indirect increment becomes an atomic add. */
    @Kernels
    public static void fluxAtomic(int edges, int[] c1, int[] c2, double[] ex, double[] ey, double[] q, double[] adt,
                                  double[] res) {
        for (@Loop(increments = Loop.Increments.ATOMIC) int e = 0; e < edges; e++) {
            int a = c1[e];
            int b = c2[e];
            double dx = ex[e];
            double dy = ey[e];
            double ra = 1 / q[4 * a];
            double pa = GM1 * (q[4 * a + 3] - 0.5 * ra * (q[4 * a + 1] * q[4 * a + 1] + q[4 * a + 2] * q[4 * a + 2]));
            double va = ra * (q[4 * a + 1] * dy - q[4 * a + 2] * dx);
            double rb = 1 / q[4 * b];
            double pb = GM1 * (q[4 * b + 3] - 0.5 * rb * (q[4 * b + 1] * q[4 * b + 1] + q[4 * b + 2] * q[4 * b + 2]));
            double vb = rb * (q[4 * b + 1] * dy - q[4 * b + 2] * dx);
            double mu = 0.5 * (adt[a] + adt[b]) * EPS;
            double f0 = 0.5 * (va * q[4 * a] + vb * q[4 * b]) + mu * (q[4 * a] - q[4 * b]);
            double f1 = 0.5 * (va * q[4 * a + 1] + pa * dy + vb * q[4 * b + 1] + pb * dy) + mu * (q[4 * a + 1] - q[4 * b + 1]);
            double f2 = 0.5 * (va * q[4 * a + 2] - pa * dx + vb * q[4 * b + 2] - pb * dx) + mu * (q[4 * a + 2] - q[4 * b + 2]);
            double f3 = 0.5 * (va * (q[4 * a + 3] + pa) + vb * (q[4 * b + 3] + pb)) + mu * (q[4 * a + 3] - q[4 * b + 3]);
            res[4 * a] += f0;
            res[4 * a + 1] += f1;
            res[4 * a + 2] += f2;
            res[4 * a + 3] += f3;
            res[4 * b] -= f0;
            res[4 * b + 1] -= f1;
            res[4 * b + 2] -= f2;
            res[4 * b + 3] -= f3;
        }
    }

    /**
     * Colouring by the runtime: {@code @Loop(increments = Loop.Increments.COLOUR)} on the edge loop, and the runtime
     * colours the edges through {@code c1} and {@code c2} (kept while they are unchanged) and launches once per colour,
     * with plain adds. The loop is the atomic one's, word for word.
     */
    @Kernels
    public static void fluxRuntimeColour(int edges, int[] c1, int[] c2, double[] ex, double[] ey, double[] q,
                                         double[] adt, double[] res) {
        for (@Loop(increments = Loop.Increments.COLOUR) int e = 0; e < edges; e++) {
            int a = c1[e];
            int b = c2[e];
            double dx = ex[e];
            double dy = ey[e];
            double ra = 1 / q[4 * a];
            double pa = GM1 * (q[4 * a + 3] - 0.5 * ra * (q[4 * a + 1] * q[4 * a + 1] + q[4 * a + 2] * q[4 * a + 2]));
            double va = ra * (q[4 * a + 1] * dy - q[4 * a + 2] * dx);
            double rb = 1 / q[4 * b];
            double pb = GM1 * (q[4 * b + 3] - 0.5 * rb * (q[4 * b + 1] * q[4 * b + 1] + q[4 * b + 2] * q[4 * b + 2]));
            double vb = rb * (q[4 * b + 1] * dy - q[4 * b + 2] * dx);
            double mu = 0.5 * (adt[a] + adt[b]) * EPS;
            double f0 = 0.5 * (va * q[4 * a] + vb * q[4 * b]) + mu * (q[4 * a] - q[4 * b]);
            double f1 = 0.5 * (va * q[4 * a + 1] + pa * dy + vb * q[4 * b + 1] + pb * dy) + mu * (q[4 * a + 1] - q[4 * b + 1]);
            double f2 = 0.5 * (va * q[4 * a + 2] - pa * dx + vb * q[4 * b + 2] - pb * dx) + mu * (q[4 * a + 2] - q[4 * b + 2]);
            double f3 = 0.5 * (va * (q[4 * a + 3] + pa) + vb * (q[4 * b + 3] + pb)) + mu * (q[4 * a + 3] - q[4 * b + 3]);
            res[4 * a] += f0;
            res[4 * a + 1] += f1;
            res[4 * a + 2] += f2;
            res[4 * a + 3] += f3;
            res[4 * b] -= f0;
            res[4 * b + 1] -= f1;
            res[4 * b + 2] -= f2;
            res[4 * b + 3] -= f3;
        }
    }

    /** Colouring: the edges {@code order[start..end)} of one colour, which share no cell. */
    @Kernels
    public static void fluxColour(int start, int end, int[] order, int[] c1, int[] c2, double[] ex, double[] ey,
                                  double[] q, double[] adt, double[] res) {
        for (@Loop(independent = true) int j = start; j < end; j++) {
            int e = order[j];
            int a = c1[e];
            int b = c2[e];
            double dx = ex[e];
            double dy = ey[e];
            double ra = 1 / q[4 * a];
            double pa = GM1 * (q[4 * a + 3] - 0.5 * ra * (q[4 * a + 1] * q[4 * a + 1] + q[4 * a + 2] * q[4 * a + 2]));
            double va = ra * (q[4 * a + 1] * dy - q[4 * a + 2] * dx);
            double rb = 1 / q[4 * b];
            double pb = GM1 * (q[4 * b + 3] - 0.5 * rb * (q[4 * b + 1] * q[4 * b + 1] + q[4 * b + 2] * q[4 * b + 2]));
            double vb = rb * (q[4 * b + 1] * dy - q[4 * b + 2] * dx);
            double mu = 0.5 * (adt[a] + adt[b]) * EPS;
            double f0 = 0.5 * (va * q[4 * a] + vb * q[4 * b]) + mu * (q[4 * a] - q[4 * b]);
            double f1 = 0.5 * (va * q[4 * a + 1] + pa * dy + vb * q[4 * b + 1] + pb * dy) + mu * (q[4 * a + 1] - q[4 * b + 1]);
            double f2 = 0.5 * (va * q[4 * a + 2] - pa * dx + vb * q[4 * b + 2] - pb * dx) + mu * (q[4 * a + 2] - q[4 * b + 2]);
            double f3 = 0.5 * (va * (q[4 * a + 3] + pa) + vb * (q[4 * b + 3] + pb)) + mu * (q[4 * a + 3] - q[4 * b + 3]);
            res[4 * a] += f0;
            res[4 * a + 1] += f1;
            res[4 * a + 2] += f2;
            res[4 * a + 3] += f3;
            res[4 * b] -= f0;
            res[4 * b + 1] -= f1;
            res[4 * b + 2] -= f2;
            res[4 * b + 3] -= f3;
        }
    }

    /** The coloured loop: one launch per colour. */
    public static void fluxColoured(Mesh m, Colouring col, double[] res) {
        for (int c = 0; c < col.colours(); c++) {
            fluxColour(col.start(c), col.end(c), col.order(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(), res);
        }
    }

    /**
     * Whether {@code got} is within {@code 2 k eps sum |f|} of {@code expected} for every cell and component, printing
     * the first that is not.
     */
    public static boolean withinBound(String what, Mesh m, double[] expected, double[] got) {
        double[] abs = new double[4 * m.cells()];
        int[] count = new int[m.cells()];
        double[] f = new double[4];
        for (int e = 0; e < m.edges(); e++) {
            fluxes(m, e, f);
            for (int k = 0; k < 4; k++) {
                abs[4 * m.c1()[e] + k] += Math.abs(f[k]);
                abs[4 * m.c2()[e] + k] += Math.abs(f[k]);
            }
            count[m.c1()[e]]++;
            count[m.c2()[e]]++;
        }
        for (int i = 0; i < expected.length; i++) {
            double bound = 2 * count[i / 4] * Math.ulp(1.0) * abs[i];
            if (!(Math.abs(expected[i] - got[i]) <= bound)) {
                System.out.printf("%s: cell %d component %d: %s, Java %s, bound %.3g%n", what, i / 4, i % 4, got[i],
                        expected[i], bound);
                return false;
            }
        }
        return true;
    }

    @Data(copyin = {"c1", "c2", "ex", "ey", "q", "adt"}, copy = "res")
    static double timeAtomic(int edges, int[] c1, int[] c2, double[] ex, double[] ey, double[] q, double[] adt,
                             double[] res, int reps) {
        return Check.medianMillis(reps, () -> {
            fluxAtomic(edges, c1, c2, ex, ey, q, adt, res);
            Acc.waitAll();
        });
    }

    @Data(copyin = {"order", "c1", "c2", "ex", "ey", "q", "adt"}, copy = "res")
    static double timeColour(Colouring col, int[] order, int[] c1, int[] c2, double[] ex, double[] ey, double[] q,
                             double[] adt, double[] res, int reps) {
        return Check.medianMillis(reps, () -> {
            for (int c = 0; c < col.colours(); c++) {
                fluxColour(col.start(c), col.end(c), order, c1, c2, ex, ey, q, adt, res);
            }
            Acc.waitAll();
        });
    }

    @Data(copyin = {"c1", "c2", "ex", "ey", "q", "adt"}, copy = "res")
    static double timeRuntimeColour(int edges, int[] c1, int[] c2, double[] ex, double[] ey, double[] q, double[] adt,
                                    double[] res, int reps) {
        return Check.medianMillis(reps, () -> {
            fluxRuntimeColour(edges, c1, c2, ex, ey, q, adt, res);
            Acc.waitAll();
        });
    }

    public static void main(String[] args) {
        boolean gpu = Check.gpu();
        int cells = Check.arg(args, 0, gpu ? 1 << 22 : 1 << 16);
        int reps = Check.arg(args, 1, gpu ? 20 : 3);
        int nx = (int) Math.sqrt(cells);
        Mesh m = generate(nx, cells / nx, 2024);
        Check.header("Airfoil-like edge fluxes on a generated mesh (double)", m.cells() + " cells, " + m.edges()
                + " edges");
        double[] expected = new double[4 * m.cells()];
        fluxPlain(m, expected);
        double[] atomic = new double[4 * m.cells()];
        fluxAtomic(m.edges(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(), atomic);
        boolean ok = withinBound("atomics", m, expected, atomic);
        long t0 = System.nanoTime();
        Colouring.Cache cache = new Colouring.Cache();
        Colouring col = cache.of(m.edges(), m.c1(), m.c2());
        double colourMs = (System.nanoTime() - t0) / 1e6;
        t0 = System.nanoTime();
        boolean same = cache.of(m.edges(), m.c1(), m.c2()) == col;
        double checkMs = (System.nanoTime() - t0) / 1e6;
        double[] coloured = new double[4 * m.cells()];
        fluxColoured(m, col, coloured);
        ok &= same && withinBound("colouring", m, expected, coloured);
        double[] runtime = new double[4 * m.cells()];
        fluxRuntimeColour(m.edges(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(), runtime);
        ok &= withinBound("runtime colouring", m, expected, runtime);
        System.out.printf("  %d colours: colouring %.1f ms once, then %.1f ms to find the maps unchanged%n",
                col.colours(), colourMs, checkMs);
        // the edge data, both cells' state and time step, and each cell's residual read and written per edge
        double bytes = m.edges() * (8.0 + 16 + 2 * (32 + 8) + 2 * 64);
        double[] res = new double[4 * m.cells()];
        double plainMs = Check.medianMillis(Math.min(reps, 5), () -> fluxPlain(m, res));
        double atomicMs = timeAtomic(m.edges(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(), res, reps);
        double userMs = timeColour(col, col.order(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(), res, reps);
        double runtimeMs = timeRuntimeColour(m.edges(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(), res, reps);
        Check.row("plain Java, 1 thread", plainMs, bytes);
        Check.row("atomics, one launch", atomicMs, bytes);
        Check.row("user colouring (Colouring), " + col.colours() + " launches", userMs, bytes);
        Check.row("runtime colouring (increments = COLOUR), " + col.colours() + " launches", runtimeMs, bytes);
        System.out.println("  (median of " + reps + " calls on resident data; GB/s counts each edge's reads and "
                + "read-modify-writes, not what the caches save; the runtime checks its colouring at each call, here "
                + "with c1 and c2 present and unchanged on the device, the user's is checked outside the timed calls)");
        System.out.printf("  speed-up over plain Java: atomics %.1fx, user colouring %.1fx, runtime colouring %.1fx%n",
                plainMs / atomicMs, plainMs / userMs, plainMs / runtimeMs);
        System.out.printf("  runtime colouring / user colouring: %.2f of the time; atomics / runtime colouring: %.2f%n",
                runtimeMs / userMs, atomicMs / runtimeMs);
        Check.verdict("edge fluxes, every strategy within the bound of a reordered sum", ok, 3L * expected.length);
    }
}
