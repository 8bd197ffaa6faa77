package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.Colouring;
import org.acc4j.compiler.plan.HostNest;
import org.acc4j.runtime.launch.Multicore;
import org.acc4j.samples.EdgeFlux.Mesh;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The Airfoil-like edge loop with {@code @Loop(increments = COLOUR)} ({@link EdgeFlux#fluxRuntimeColour}) on the
 * multicore target, the runtime's pool of 1, 2, 5 and 16 threads: each colour's edges across the threads, the colours
 * in order. Every residual element is bit for bit plain Java's loop over the same colouring colour by colour
 * ({@link EdgeFlux#fluxColoured}, the order the GPU adds in) and within the bound of a reordered sum of plain Java's
 * edge order ({@link EdgeFlux#fluxPlain}), from a random starting residual, on two generated meshes.
 */
class EdgeFluxMulticoreTest {
    private static final List<Multicore> POOLS = List.of(new Multicore(1, null, null), new Multicore(2, null, null),
            new Multicore(5, null, null), new Multicore(16, null, null));

    @AfterAll
    static void close() {
        POOLS.forEach(Multicore::close);
    }

    @Test
    void everyResidualIsPlainJavasInColourOrder() throws Exception {
        HostNest nest = HostNest.of(CatalogInterpreterTest.compile(
                IrregularInterpreterTest.method(EdgeFlux.class, "fluxRuntimeColour")));
        for (int[] size : new int[][] {{40, 37}, {300, 260}}) {
            Mesh m = EdgeFlux.generate(size[0], size[1], 2024 + size[0]);
            double[] start = new Random(size[1]).doubles(4L * m.cells(), -1, 1).toArray();
            Colouring col = Colouring.ofRange(0, m.edges(), m.cells(), m.c1(), m.c2());
            double[] inColourOrder = start.clone();
            EdgeFlux.fluxColoured(m, col, inColourOrder);
            double[] plain = new double[start.length];
            EdgeFlux.fluxPlain(m, plain);
            for (Multicore pool : POOLS) {
                for (int call = 0; call < 2; call++) {
                    double[] res = start.clone();
                    List<HostNest.Run> runs = new ArrayList<>();
                    nest.run(CatalogMulticoreTest::noField, null, new Object[] {m.edges(), m.c1(), m.c2(), m.ex(),
                        m.ey(), m.q(), m.adt(), res}, pool, runs::add);
                    String where = m.cells() + " cells on " + pool.threads() + " threads, call " + call;
                    assertArrayEquals(inColourOrder, res, 0.0, where);
                    double[] fromZero = new double[start.length];
                    nest.run(CatalogMulticoreTest::noField, null, new Object[] {m.edges(), m.c1(), m.c2(), m.ex(),
                        m.ey(), m.q(), m.adt(), fromZero}, pool, null);
                    assertTrue(EdgeFlux.withinBound(where, m, plain, fromZero), where);
                    assertEquals(1, runs.size(), where);
                    assertEquals(col.colours(), runs.get(0).colours(), where);
                    assertEquals(m.edges(), runs.get(0).trip(), where);
                }
            }
        }
    }
}
