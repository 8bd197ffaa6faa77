package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.StridedLoops;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Stmt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Parallel loops whose step is invariant but not a constant ({@link Stmt.Stride}): the mapping of each fixture, its
 * PTX through ptxas (the butterfly's against a golden file), the kernel on the interpreter against plain Java on
 * seeded random inputs, every element compared; and the calls whose loop Java would not run as counted (a step that
 * is not positive, an index that would wrap around beside Integer.MAX_VALUE), which must run on the host.
 */
class StridedLoopsTest {
    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
            "butterfly0, Map1, 1",
            "butterfly, Map1, 1",
            "stepped, Map1, 1",
            "downward, Map1, 1",
            "mapped, Map1, 1",
            "columns, Map2_3, 2",
            "near, Map1, 1",
            "pairs, Map1, 1",
    })
    void mappingAndResult(String name, String mapping, int levels) throws Exception {
        CompiledMethod m = CompilerTest.offload(StridedLoops.class, name);
        Mapping map = m.kernels().get(0).mapping();
        assertEquals(mapping, map.name(), map::toString);
        assertEquals(levels, map.levels().size(), map::toString);
        assertNotNull(map.levels().get(levels - 1).outer().stride(), map::toString);
        assertTrue(String.join("\n", m.report()).contains("checked before each launch: the loop over "),
                m.report()::toString);
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            for (KernelPlan k : m.kernels()) {
                assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry());
                if (k.unchecked() != null) {
                    assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()),
                            () -> "ptxas rejects " + k.unchecked().entry());
                }
            }
        }
        for (int maxBlocks : new int[] {2, 1000}) {
            for (long seed = 1; seed <= 4; seed++) {
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

    /** Seeded inputs: steps known only now, sizes that are not multiples of the steps or the blocks. */
    static Object[] args(String name, long seed) {
        Random r = new Random(seed);
        return switch (name) {
            case "butterfly0", "butterfly" -> {
                int logn = 3 + r.nextInt(6);
                int n = 1 << logn;
                int dual = 1 << r.nextInt(logn);
                double[] data = NestInputs.doubles(r, 2 * n);
                yield name.equals("butterfly0") ? new Object[] {data, n, dual}
                        : new Object[] {data, n, dual, r.nextInt(dual), r.nextDouble() - 0.5, r.nextDouble() - 0.5};
            }
            case "stepped" -> {
                int lo = r.nextInt(20);
                int hi = lo + 100 + r.nextInt(400);
                yield new Object[] {NestInputs.floats(r, hi + 5), NestInputs.floats(r, hi + 5), lo, hi, 1 + r.nextInt(9)};
            }
            case "downward" -> {
                int n = 100 + r.nextInt(300);
                yield new Object[] {ints(r, n), n - 1 - r.nextInt(5), r.nextInt(10), 1 + r.nextInt(4), 1 + r.nextInt(3)};
            }
            case "mapped" -> {
                int n = 100 + r.nextInt(300);
                int lo = r.nextInt(10);
                yield new Object[] {NestInputs.doubles(r, n), NestInputs.doubles(r, n), lo, n - 1 - r.nextInt(3),
                        1 + r.nextInt(7)};
            }
            case "columns" -> {
                int rows = 3 + r.nextInt(20);
                int cols = 2 + r.nextInt(60);
                yield new Object[] {NestInputs.doubles(r, rows * cols), NestInputs.doubles(r, rows * cols), rows, cols,
                        1 + r.nextInt(5)};
            }
            case "near" -> {
                // the index ends within a step of Integer.MAX_VALUE without passing it
                int s = 1 + r.nextInt(40);
                int count = 10 + r.nextInt(50);
                int hi = Integer.MAX_VALUE - r.nextInt(s);
                int lo = hi - count * s;
                yield new Object[] {new int[count * s + 1], lo, hi, s};
            }
            case "pairs" -> {
                int s = 2 + r.nextInt(8);
                int n = 50 + r.nextInt(200);
                yield new Object[] {NestInputs.doubles(r, n + s), n, s, r.nextInt(s)};
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
        for (Method m : StridedLoops.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    @Test
    void theButterflyMatchesItsGoldenPtx() throws Exception {
        for (String name : new String[] {"butterfly0", "butterfly"}) {
            for (KernelPlan k : CompilerTest.offload(StridedLoops.class, name).kernels()) {
                Golden.check(PtxGoldenTest.GOLDEN, k.entry() + ".ptx", k.ptx());
            }
        }
    }

    @Test
    void theFrontEndCountsTheIterations() {
        Stmt.For f = (Stmt.For) TestClasses.read(StridedLoops.class, "butterfly0").body().get(0);
        assertEquals(Cond.LT, f.cond());
        assertEquals(1, f.step());
        assertNotNull(f.stride());
        assertEquals("b", f.stride().var().name());
        assertEquals("(2 * dual)", f.stride().step().toString());
        // the body starts with b = k * (2 * dual)
        Stmt.Assign first = assertInstanceOf(Stmt.Assign.class, f.body().get(0));
        assertEquals(f.stride().var(), first.var());
        Stmt.For down = (Stmt.For) TestClasses.read(StridedLoops.class, "downward").body().get(0);
        assertTrue(down.stride().down());
        assertEquals(Cond.GE, down.stride().cond());
    }

    /** With a step of 0 Java's loop never ends, and with a negative one it runs until the index wraps around. */
    @Test
    void aStepThatIsNotPositiveRunsOnTheHostWithTheReason() throws Exception {
        CompiledMethod m = CompilerTest.offload(StridedLoops.class, "stepped");
        for (int s : new int[] {0, -3}) {
            KernelInterpreter.HostInstead h = assertThrows(KernelInterpreter.HostInstead.class,
                    () -> KernelInterpreter.run(m, new Object[] {new float[8], new float[8], 0, 8, s}, 4));
            assertTrue(h.getMessage().contains("the loop over i (i += s) steps by " + s + ", which is not positive"),
                    h::getMessage);
        }
        // what the host runs with -3: Java's loop, which walks below 0
        InvocationTargetException e = assertThrows(InvocationTargetException.class,
                () -> method("stepped").invoke(null, new float[8], new float[8], 0, 8, -3));
        assertEquals("Index -3 out of bounds for length 8", e.getCause().getMessage());
    }

    @Test
    void anEmptyRangeLaunchesNothing() {
        CompiledMethod m = CompilerTest.offload(StridedLoops.class, "stepped");
        Random r = new Random(7);
        for (int[] c : new int[][] {{5, 5, 3}, {9, 2, 4}}) {
            float[] y = NestInputs.floats(r, 12);
            float[] before = y.clone();
            KernelInterpreter.run(m, new Object[] {y, NestInputs.floats(r, 12), c[0], c[1], c[2]}, 4);
            assertArrayEquals(before, y);
        }
        CompiledMethod d = CompilerTest.offload(StridedLoops.class, "downward");
        int[] a = ints(r, 10);
        int[] before = a.clone();
        KernelInterpreter.run(d, new Object[] {a, 3, 4, 2, 1}, 4);
        assertArrayEquals(before, a);
    }

    /**
     * From Integer.MAX_VALUE - 10 in steps of 4 below Integer.MAX_VALUE, Java's index passes MAX_VALUE and wraps
     * around to a negative value, still below the bound: the launch is refused, and the host's Java loop goes on
     * until it leaves the array.
     */
    @Test
    void anIndexThatWouldWrapAroundRunsOnTheHost() throws Exception {
        CompiledMethod m = CompilerTest.offload(StridedLoops.class, "near");
        int lo = Integer.MAX_VALUE - 10;
        KernelInterpreter.HostInstead h = assertThrows(KernelInterpreter.HostInstead.class,
                () -> KernelInterpreter.run(m, new Object[] {new int[16], lo, Integer.MAX_VALUE, 4}, 4));
        assertTrue(h.getMessage().contains("passes Integer.MAX_VALUE before its test against 2147483647 fails"),
                h::getMessage);
        int[] a = new int[16];
        InvocationTargetException e = assertThrows(InvocationTargetException.class,
                () -> method("near").invoke(null, a, lo, Integer.MAX_VALUE, 4));
        assertEquals("Index 16 out of bounds for length 16", e.getCause().getMessage());
        // from two more below, the index stops exactly at MAX_VALUE: offloaded, Java's three iterations
        int[] d = new int[16];
        KernelInterpreter.run(m, new Object[] {d, lo - 2, Integer.MAX_VALUE, 4}, 4);
        int[] plain = new int[16];
        StridedLoops.near(plain, lo - 2, Integer.MAX_VALUE, 4);
        assertArrayEquals(plain, d);
        assertEquals(Integer.MAX_VALUE - 4, d[8]);
        // <= MAX_VALUE can never stop without wrapping
        Stmt.Stride le = new Stmt.Stride(new org.acc4j.compiler.ir.Var(0, org.acc4j.compiler.ir.Type.I32, "i"),
                org.acc4j.compiler.ir.Expr.Const.i32(0), Cond.LE,
                org.acc4j.compiler.ir.Expr.Const.i32(Integer.MAX_VALUE), org.acc4j.compiler.ir.Expr.Const.i32(1 << 20));
        assertTrue(le.check(new org.acc4j.compiler.ir.Evaluator(src -> null)).contains("passes Integer.MAX_VALUE"));
    }

    @Test
    void writesThatOverlapForTheseArgumentsRunOnTheHost() throws Exception {
        CompiledMethod m = CompilerTest.offload(StridedLoops.class, "pairs");
        assertEquals(1, m.kernels().get(0).region().checks().size(), m.report()::toString);
        Random r = new Random(9);
        // pairs 4 apart in strides of 4: iteration k's a[i + off] is iteration k+1's a[i]
        double[] a = NestInputs.doubles(r, 44);
        KernelInterpreter.HostInstead h = assertThrows(KernelInterpreter.HostInstead.class,
                () -> KernelInterpreter.run(m, new Object[] {a, 40, 4, 4}, 4));
        assertTrue(h.getMessage().contains("the subscript of a at line") && h.getMessage().contains("may repeat"),
                h::getMessage);
        // with dual = 0 the butterfly's step is 0: refused before its writes are looked at
        CompiledMethod b = CompilerTest.offload(StridedLoops.class, "butterfly0");
        KernelInterpreter.HostInstead z = assertThrows(KernelInterpreter.HostInstead.class,
                () -> KernelInterpreter.run(b, new Object[] {new double[16], 8, 0}, 4));
        assertTrue(z.getMessage().contains("which is not positive"), z::getMessage);
    }

    @Test
    void aMarkedInnerStrideWhoseBoundDependsOnTheOuterIndexIsRefused() {
        Diagnostic d = CompilerTest.host(StridedLoops.class, "triangle");
        assertTrue(d.toString().contains("a parallel loop over c whose step is not a constant and whose bound r depends"
                + " on r"), d::toString);
    }
}
