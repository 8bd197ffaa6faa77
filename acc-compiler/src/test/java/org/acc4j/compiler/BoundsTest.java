package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.fixtures.BoundsKernels;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.Nests;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ErrorSite;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.junit.jupiter.api.Test;

/**
 * Bounds checks hoisted to the host: which accesses are proven, the kernel variant without their checks (golden,
 * through ptxas), the proofs for good and bad calls, and the interpreter's results (the interpreter also fails if
 * an access it was told is proven goes out of bounds, in every test that runs it).
 */
class BoundsTest {
    static Evaluator host(CompiledMethod m, Object[] args) {
        Evaluator ev = new Evaluator(s -> args[((org.acc4j.compiler.ir.ArrayRef.Parameter) s).index()]);
        for (MethodBody.Param p : m.body().params()) {
            Type t = Type.ofDescriptor(p.descriptor());
            if (t != null) {
                ev.set(new Var(p.slot(), t, p.name()), args[p.index()]);
            }
        }
        return ev;
    }

    static boolean proven(CompiledMethod m, Object... args) {
        Evaluator ev = host(m, args);
        return m.kernels().get(0).provenInBounds(ev, a -> args[((org.acc4j.compiler.ir.ArrayRef.Parameter) a.source()).index()]);
    }

    static List<String> hoisted(CompiledMethod m) {
        KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
        return u == null ? List.of() : u.checks().stream().map(c -> c.array().name()).toList();
    }

    @Test
    void jacobiHasEveryCheckHoisted() throws Exception {
        // the plain variant without checks (a 2D nest whose column has a gap is marched by default)
        String before = System.getProperty(org.acc4j.compiler.pass.Marching.Shape.PROPERTY);
        System.setProperty(org.acc4j.compiler.pass.Marching.Shape.PROPERTY, "gaps2d=off");
        CompiledMethod m;
        try {
            m = CompilerTest.offload(Nests.class, "jacobiAuto");
        } finally {
            if (before == null) {
                System.clearProperty(org.acc4j.compiler.pass.Marching.Shape.PROPERTY);
            } else {
                System.setProperty(org.acc4j.compiler.pass.Marching.Shape.PROPERTY, before);
            }
        }
        KernelPlan k = m.kernels().get(0);
        assertNotNull(k.unchecked());
        assertEquals(List.of("b", "b", "b", "b", "a"), hoisted(m));
        assertTrue(k.unchecked().sites().stream().noneMatch(s -> s.kind() == ErrorSite.Kind.INDEX_OUT_OF_BOUNDS),
                k.unchecked().sites()::toString);
        assertFalse(k.unchecked().ptx().contains("$L_oob"));
        assertTrue(k.ptx().contains("$L_oob"));
        Golden.check(PtxGoldenTest.GOLDEN, k.unchecked().entry() + ".ptx", k.unchecked().ptx());
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()));
        }
        int n = 37;
        assertTrue(proven(m, new double[n * n], new double[n * n], n));
        // n too large for the arrays: the proof fails and the checked kernel raises Java's exception
        assertFalse(proven(m, new double[n * n], new double[n * n], n + 1));
        assertSameOutcome(m, Nests.class, "jacobiAuto", new double[n * n], new double[n * n], n + 1);
    }

    @Test
    void aConditionalAccessOutsideTheRangeOfItsLoopKeepsItsCheck() throws Exception {
        CompiledMethod m = CompilerTest.offload(BoundsKernels.class, "shiftRight");
        assertEquals(List.of("b", "a"), hoisted(m));
        Random r = new Random(1);
        double[] b = NestInputs.doubles(r, 101);
        assertFalse(proven(m, new double[101], b, 101));
        assertTrue(proven(m, new double[101], b, 0));
        assertSameOutcome(m, BoundsKernels.class, "shiftRight", new double[101], b, 101);
    }

    @Test
    void indirectSubscriptsAreCheckedInTheKernel() throws Exception {
        CompiledMethod m = CompilerTest.offload(BoundsKernels.class, "gather");
        assertEquals(List.of("idx", "a"), hoisted(m));
        Random r = new Random(2);
        int[] idx = new int[200];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = r.nextInt(150);
        }
        assertTrue(proven(m, new double[200], NestInputs.doubles(r, 150), idx, 200));
        assertSameOutcome(m, BoundsKernels.class, "gather", new double[200], NestInputs.doubles(r, 150), idx, 200);
        idx[77] = 150;
        assertTrue(proven(m, new double[200], NestInputs.doubles(r, 150), idx, 200));
        assertSameOutcome(m, BoundsKernels.class, "gather", new double[200], NestInputs.doubles(r, 150), idx, 200);
    }

    @Test
    void aTriangularInnerLoopKeepsItsChecks() throws Exception {
        CompiledMethod m = CompilerTest.offload(BoundsKernels.class, "lowerTriangle");
        assertEquals(List.of("d"), hoisted(m));
        assertSameOutcome(m, BoundsKernels.class, "lowerTriangle", new double[31 * 31], new double[31], 31);
    }

    @Test
    void jaggedRowsAreProvenAgainstTheShortestRow() throws Exception {
        CompiledMethod m = CompilerTest.offload(BoundsKernels.class, "rows");
        assertEquals(List.of("b", "a"), hoisted(m));
        Random r = new Random(3);
        double[][] a = new double[9][];
        double[][] b = new double[9][];
        for (int i = 0; i < 9; i++) {
            a[i] = new double[20 + i];
            b[i] = NestInputs.doubles(r, 25 - i);
        }
        // the shortest rows: a[0] has 20 elements, b[8] has 17
        assertTrue(proven(m, a, b, 9, 17));
        assertFalse(proven(m, a, b, 9, 18));
        assertFalse(proven(m, a, b, 10, 17));
        assertTrue(proven(m, a, b, 8, 18));
        assertSameOutcome(m, BoundsKernels.class, "rows", a, b, 9, 17);
        assertSameOutcome(m, BoundsKernels.class, "rows", a, b, 9, 18);
    }

    @Test
    void aKnownRowLengthStandsForTheRowsAndAnUnknownOneReadsThem() throws Exception {
        CompiledMethod m = CompilerTest.offload(BoundsKernels.class, "rows");
        double[][] a = new double[9][20];
        double[][] b = new double[9][20];
        b[8] = new double[17];
        Object[] args = {a, b, 9, 18};
        Evaluator ev = host(m, args);
        java.util.function.Function<org.acc4j.compiler.ir.ArrayRef, Object> arrays =
                x -> args[((org.acc4j.compiler.ir.ArrayRef.Parameter) x.source()).index()];
        KernelPlan k = m.kernels().get(0);
        // unknown: b's row 8 (17 elements) is read and fails the proof
        assertFalse(k.provenInBounds(ev, arrays, RangeCheck.NO_ROW_LENGTHS));
        // the shortest row told (as the runtime tells it for rows unchanged since its table was written): no row is read
        java.util.Set<Object> asked = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        b[8] = null;
        assertTrue(k.provenInBounds(ev, arrays, rows -> {
            asked.add(rows);
            return 20;
        }), "the rows are not looked at");
        assertEquals(2, asked.size());
        assertTrue(k.provenInBounds(ev, arrays, rows -> 18), "columns 0 to 17 fit rows of 18");
        assertFalse(k.provenInBounds(ev, arrays, rows -> rows == a ? 20 : 17), "column 17 is past rows of 17");
        // the null row is found when the lengths are not known
        assertFalse(k.provenInBounds(ev, arrays, rows -> -1));
    }

    @Test
    void negativeStepsAndOffsetsThroughLocals() throws Exception {
        CompiledMethod m = CompilerTest.offload(BoundsKernels.class, "reversed");
        assertEquals(List.of("b", "a"), hoisted(m));
        Random r = new Random(4);
        float[] b = new float[120];
        for (int i = 0; i < b.length; i++) {
            b[i] = r.nextFloat();
        }
        // i runs 99, 97, ..., 1: b[i + 20] reaches 119
        assertTrue(proven(m, new float[100], b, 100, 20));
        assertFalse(proven(m, new float[100], b, 100, 21));
        assertTrue(proven(m, new float[100], b, 100, -1));
        assertFalse(proven(m, new float[100], b, 100, -2));
        assertSameOutcome(m, BoundsKernels.class, "reversed", new float[100], b, 100, 20);
        assertSameOutcome(m, BoundsKernels.class, "reversed", new float[100], b, 100, 21);
        assertSameOutcome(m, BoundsKernels.class, "reversed", new float[100], b, 100, -2);
    }

    @Test
    void theProofIsSoundWhenJavasArithmeticWraps() {
        // a[i * n + j] with n * n beyond int: the exact range is out of bounds, so the proof fails
        CompiledMethod m = CompilerTest.offload(Nests.class, "jacobiAuto");
        int n = 46341; // n * n > Integer.MAX_VALUE
        RangeCheck store = m.kernels().get(0).unchecked().checks().get(4);
        Object[] args = {new double[16], new double[16], n};
        assertFalse(store.holds(host(m, args), a -> args[((org.acc4j.compiler.ir.ArrayRef.Parameter) a.source()).index()]));
    }

    /** Runs {@code name} as Java and on the interpreter on copies of {@code args}: same arrays or same exception. */
    static void assertSameOutcome(CompiledMethod m, Class<?> owner, String name, Object... args) throws Exception {
        Method method = Arrays.stream(owner.getMethods()).filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
        Object[] plain = NestInputs.copy(args);
        Object[] device = NestInputs.copy(args);
        Throwable javaThrew = null;
        try {
            method.invoke(null, plain);
        } catch (InvocationTargetException e) {
            javaThrew = e.getCause();
        }
        for (int maxBlocks : new int[] {2, 1000}) {
            Object[] d = NestInputs.copy(args);
            if (javaThrew != null) {
                Throwable expected = javaThrew;
                Throwable t = assertThrows(expected.getClass(), () -> KernelInterpreter.run(m, d, maxBlocks));
                assertEquals(expected.getMessage(), t.getMessage());
            } else {
                KernelInterpreter.run(m, d, maxBlocks);
                for (int k = 0; k < d.length; k++) {
                    assertDeep(plain[k], d[k], name + " argument " + k);
                }
            }
        }
    }

    static void assertDeep(Object expected, Object actual, String what) {
        if (expected instanceof double[][] e) {
            for (int i = 0; i < e.length; i++) {
                NestInputs.assertDeepEquals(e[i], ((double[][]) actual)[i], what + " row " + i);
            }
        } else {
            NestInputs.assertDeepEquals(expected, actual, what);
        }
    }

}
