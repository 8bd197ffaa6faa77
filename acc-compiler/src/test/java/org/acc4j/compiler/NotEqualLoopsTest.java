package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.NotEqualLoops;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Stmt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Loops tested with {@code !=}: the mapping of each fixture, its PTX against a golden file and through ptxas, and
 * the mapped kernel on the interpreter against plain Java on seeded random inputs; the trip count Java runs; and
 * the calls whose {@code !=} loop would wrap around, which must not be launched.
 */
class NotEqualLoopsTest {
    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
            "up, Map1, 1",
            "down, Map1, 1",
            "step2, Map1, 1",
            "nest2D, Map2_4, 2",
            "nestMapped, Map2_3, 2",
            "collapsed, Map1, 1",
            "suffix, Map1, 1",
            "wrapping, Map1, 1",
            "longIndex, Map1, 1",
            "quarters, Map1, 1",
            "triangle, Map1, 1",
    })
    void mappingAndResult(String name, String mapping, int levels) throws Exception {
        CompiledMethod m = CompilerTest.offload(NotEqualLoops.class, name);
        Mapping map = m.kernels().get(0).mapping();
        assertEquals(mapping, map.name(), map::toString);
        assertEquals(levels, map.levels().size(), map::toString);
        for (KernelPlan k : m.kernels()) {
            Golden.check(PtxGoldenTest.GOLDEN, k.entry() + ".ptx", k.ptx());
        }
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            for (KernelPlan k : m.kernels()) {
                assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry());
            }
        }
        for (int maxBlocks : new int[] {2, 1000}) {
            for (long seed = 1; seed <= 3; seed++) {
                Object[] device = args(name, seed);
                Object[] plain = NestInputs.copy(device);
                method(name).invoke(null, plain);
                KernelInterpreter.run(m, device, maxBlocks);
                for (int k = 0; k < device.length; k++) {
                    NestInputs.assertDeepEquals(plain[k], device[k], name + " argument " + k + " (seed " + seed + ", "
                            + maxBlocks + " blocks per axis at most)");
                }
            }
        }
    }

    /** Seeded inputs: sizes that are not multiples of the blocks, spans that are whole numbers of steps. */
    static Object[] args(String name, long seed) {
        Random r = new Random(seed);
        return switch (name) {
            case "up" -> {
                int n = 200 + r.nextInt(200);
                yield new Object[] {new double[n], NestInputs.doubles(r, n), n};
            }
            case "down" -> {
                int n = 200 + r.nextInt(200);
                yield new Object[] {ints(r, n), n};
            }
            case "step2" -> {
                int lo = r.nextInt(9);
                int hi = lo + 2 * (50 + r.nextInt(150));
                yield new Object[] {NestInputs.floats(r, hi + 3), NestInputs.floats(r, hi + 3), lo, hi};
            }
            case "nest2D" -> {
                int n = 5 + r.nextInt(20);
                int m = 1 + r.nextInt(30);
                yield new Object[] {new double[n * m], NestInputs.doubles(r, n * m), n, m};
            }
            case "nestMapped" -> {
                int n = 20 + r.nextInt(20);
                yield new Object[] {NestInputs.doubles(r, n * n), NestInputs.doubles(r, n * n), n};
            }
            case "collapsed" -> {
                int rows = 3 + r.nextInt(12);
                int cols = 1 + r.nextInt(12);
                yield new Object[] {new float[rows * 2 * cols], NestInputs.floats(r, rows * 2 * cols), rows, cols};
            }
            case "suffix" -> {
                int n = 20 + r.nextInt(30);
                int m = 1 + r.nextInt(25);
                yield new Object[] {new double[n], NestInputs.doubles(r, n * m), n, m};
            }
            case "wrapping" -> {
                int n = 30 + r.nextInt(30);
                long[] out = new long[n];
                for (int i = 0; i < n; i++) {
                    out[i] = r.nextLong();
                }
                // k runs through Integer.MAX_VALUE to Integer.MIN_VALUE in some threads
                yield new Object[] {out, n, Integer.MAX_VALUE - n / 2};
            }
            case "longIndex" -> {
                long lo = 5_000_000_000L + r.nextInt(1000);
                int trips = 100 + r.nextInt(200);
                yield new Object[] {new long[3 * trips], lo, lo + 3L * trips};
            }
            case "quarters" -> new Object[] {ints(r, 4), Integer.MIN_VALUE, 0};
            case "triangle" -> {
                int n = 10 + r.nextInt(30);
                yield new Object[] {NestInputs.doubles2(r, n, n), n};
            }
            default -> throw new IllegalArgumentException(name);
        };
    }

    static int[] ints(Random r, int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt(2001) - 1000;
        }
        return a;
    }

    static Method method(String name) {
        for (Method m : NotEqualLoops.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    @Test
    void theFrontEndKeepsTheTestAndTheStep() {
        Stmt.For down = (Stmt.For) TestClasses.read(NotEqualLoops.class, "down").body().get(0);
        assertEquals(Cond.NE, down.cond());
        assertEquals(-1, down.step());
        Stmt.For quarters = (Stmt.For) TestClasses.read(NotEqualLoops.class, "quarters").body().get(0);
        assertEquals(Cond.NE, quarters.cond());
        assertEquals(1 << 30, quarters.step());
    }

    @Test
    void tripCountIsJavasWhenTheBoundIsAWholeNumberOfSteps() {
        assertEquals(7, Evaluator.tripCount(0, Cond.NE, 7, 1));
        assertEquals(0, Evaluator.tripCount(5, Cond.NE, 5, 3));
        assertEquals(4, Evaluator.tripCount(3, Cond.NE, 11, 2));
        assertEquals(10, Evaluator.tripCount(9, Cond.NE, -1, -1));
        assertEquals(3, Evaluator.tripCount(10, Cond.NE, 1, -3));
        // int bounds arrive widened: the span of MIN_VALUE..MAX_VALUE does not overflow
        assertEquals(0xFFFF_FFFFL, Evaluator.tripCount(Integer.MIN_VALUE, Cond.NE, Integer.MAX_VALUE, 1));
        assertEquals(2, Evaluator.tripCount(Integer.MIN_VALUE, Cond.NE, 0, 1 << 30));
        // the same count as the equivalent < and > loops
        for (long lo = -7; lo <= 7; lo++) {
            for (long step = 1; step <= 4; step++) {
                for (long k = 0; k <= 5; k++) {
                    assertEquals(Evaluator.tripCount(lo, Cond.LT, lo + k * step, step),
                            Evaluator.tripCount(lo, Cond.NE, lo + k * step, step));
                    assertEquals(Evaluator.tripCount(lo, Cond.GT, lo - k * step, -step),
                            Evaluator.tripCount(lo, Cond.NE, lo - k * step, -step));
                }
            }
        }
    }

    @Test
    void tripCountRefusesABoundTheIndexOnlyReachesByWrappingAround() {
        // not a multiple of the step, the wrong direction, and a long span that overflows
        for (long[] c : new long[][] {{0, 7, 2}, {0, -3, 1}, {5, 9, -1}, {1, 0, 1 << 30},
                {Long.MIN_VALUE, Long.MAX_VALUE, 1}}) {
            Evaluator.NeverReaches e = assertThrows(Evaluator.NeverReaches.class,
                    () -> Evaluator.tripCount(c[0], Cond.NE, c[1], c[2]));
            assertTrue(e.getMessage().contains("does not reach " + c[1]), e::getMessage);
        }
    }

    /** i != n with n < 0: Java's loop wraps around and faults; the interpreter, as the runtime, refuses the launch. */
    @Test
    void aBoundBehindTheStartRunsOnTheHostWithTheReason() throws Exception {
        CompiledMethod m = CompilerTest.offload(NotEqualLoops.class, "up");
        double[] b = NestInputs.doubles(new Random(5), 10);
        KernelInterpreter.HostInstead h = assertThrows(KernelInterpreter.HostInstead.class,
                () -> KernelInterpreter.run(m, new Object[] {new double[10], b, -3}, 4));
        assertTrue(h.getMessage().contains("loop over i at line") && h.getMessage().contains("does not reach -3"),
                h::getMessage);
        // what the host then runs: Java's loop, which walks past the end of a
        InvocationTargetException e = assertThrows(InvocationTargetException.class,
                () -> NotEqualLoops.class.getMethod("up", double[].class, double[].class, int.class)
                        .invoke(null, new double[10], b, -3));
        assertEquals("Index 10 out of bounds for length 10", e.getCause().getMessage());
    }

    /**
     * From 0 to Integer.MIN_VALUE in steps of 2^30 is no whole number of steps upward, yet Java's loop ends after
     * two iterations, wrapping through Integer.MAX_VALUE: the launch is refused with the reason, and the host's
     * (plain Java) run is finite and cheap.
     */
    @Test
    void aSpanThatIsNoWholeNumberOfStepsRunsOnTheHost() throws Exception {
        CompiledMethod m = CompilerTest.offload(NotEqualLoops.class, "quarters");
        assertTrue(String.join("\n", m.report()).contains("checked before each launch: the loop over i reaches its bound"),
                m.report()::toString);
        KernelInterpreter.HostInstead h = assertThrows(KernelInterpreter.HostInstead.class,
                () -> KernelInterpreter.run(m, new Object[] {new int[4], 0, Integer.MIN_VALUE}, 4));
        assertTrue(h.getMessage().contains("from 0 in steps of 1073741824 the index does not reach -2147483648"),
                h::getMessage);
        int[] a = new int[4];
        NotEqualLoops.quarters(a, 0, Integer.MIN_VALUE);
        assertArrayEquals(new int[] {1, 3, 0, 0}, a);
        // the other way round, two whole steps: offloaded
        int[] d = new int[4];
        KernelInterpreter.run(m, new Object[] {d, Integer.MIN_VALUE, 0}, 4);
        assertArrayEquals(new int[] {0, 0, -3, -1}, d);
    }

    @Test
    void zeroTripsLaunchNothing() {
        CompiledMethod m = CompilerTest.offload(NotEqualLoops.class, "step2");
        float[] y = NestInputs.floats(new Random(3), 8);
        float[] before = y.clone();
        KernelInterpreter.run(m, new Object[] {y, NestInputs.floats(new Random(4), 8), 5, 5}, 4);
        assertArrayEquals(before, y);
    }

    @Test
    void anInnerLoopWhoseBoundDependsOnTheOuterIndexStaysSequential() {
        CompiledMethod m = CompilerTest.offload(NotEqualLoops.class, "triangle");
        assertTrue(m.report().stream().anyMatch(l -> l.contains("loop over j: sequential in each thread: its != test's bound")
                && l.contains("depends on i")), m.report()::toString);
    }

    @Test
    void aMarkedParallelLoopWhoseBoundDependsOnTheOuterIndexIsRefused() {
        Diagnostic d = CompilerTest.host(NotEqualLoops.class, "triangleMapped");
        assertTrue(d.toString().contains("a parallel loop over j with a != test whose bound") && d.toString().contains("depends on i"),
                d::toString);
    }
}
