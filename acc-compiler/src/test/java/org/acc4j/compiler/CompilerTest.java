package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.acc4j.compiler.fixtures.Diagnostics;
import org.acc4j.compiler.fixtures.Kernels1D;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Type;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.tree.MethodNode;

/** The facade: host diagnostics, data clauses and kernel parameters. */
class CompilerTest {
    private static final Path KERNELS1D_SOURCE = Path.of("src/test/java/org/acc4j/compiler/fixtures/Kernels1D.java");

    static Compiler.Result compile(Class<?> c, String name) {
        return compile(c, name, internalName -> null);
    }

    /** As {@link #compile(Class, String)}, inlining methods of the classes {@code classes} gives. */
    static Compiler.Result compile(Class<?> c, String name, org.acc4j.compiler.frontend.Inliner.ClassSource classes) {
        MethodNode m = TestClasses.method(TestClasses.node(c), name);
        return Compiler.compile(TestClasses.bytes(c), name, m.desc, 90, classes);
    }

    static CompiledMethod offload(Class<?> c, String name) {
        Compiler.Result r = compile(c, name);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        return ((Compiler.Offload) r).method();
    }

    static Diagnostic host(Class<?> c, String name) {
        Compiler.Result r = compile(c, name);
        return assertInstanceOf(Compiler.Host.class, r, () -> name + " was offloaded, expected a host fallback")
                .reason();
    }

    /**
     * The 1-based line of the first line in the source of {@code method} (searched from its declaration) that
     * contains {@code statement}.
     */
    static int lineOf(String method, String statement) throws IOException {
        List<String> lines = Files.readAllLines(KERNELS1D_SOURCE, StandardCharsets.UTF_8);
        int decl = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(" void " + method + "(")) {
                decl = i;
                break;
            }
        }
        assertTrue(decl >= 0, () -> "no declaration of " + method + " in " + KERNELS1D_SOURCE.toAbsolutePath());
        for (int i = decl + 1; i < lines.size(); i++) {
            if (lines.get(i).contains(statement)) {
                return i + 1;
            }
        }
        throw new AssertionError("no '" + statement + "' in " + method + " in " + KERNELS1D_SOURCE.toAbsolutePath());
    }

    // ------------------------------------------------------------------------------------------- host

    @Test
    void callStaysOnHostAndNamesTheCallee() throws IOException {
        Diagnostic d = host(Kernels1D.class, "withCall");
        assertEquals("org/acc4j/compiler/fixtures/Kernels1D", d.owner());
        assertEquals("withCall", d.method());
        assertEquals("Kernels1D.java", d.source());
        assertEquals(lineOf("withCall", "a[i] = Math.IEEEremainder(a[i], 3.0);"), d.line());
        assertTrue(d.construct().contains("java.lang.Math.IEEEremainder"), d.construct());
        assertEquals("org.acc4j.compiler.fixtures.Kernels1D.withCall (Kernels1D.java:" + d.line()
                + "): a call to java.lang.Math.IEEEremainder", d.toString());
    }

    @Test
    void breakOutOfTheParallelLoopStaysOnHost() throws IOException {
        Diagnostic d = host(Kernels1D.class, "withBreak");
        assertEquals("withBreak", d.method());
        assertEquals("a break out of the loop over i (a parallel loop runs all its iterations; a loop inside it may "
                + "break)", d.construct());
        assertEquals(lineOf("withBreak", "break;"), d.line());
    }

    @Test
    void provenDependenceStaysOnHostNamingItsDistance() throws IOException {
        Diagnostic d = host(Kernels1D.class, "carried");
        assertEquals("a loop that is not parallelizable: a is written at a[i] and read at a[i - 1]: iteration i reads "
                + "what iteration i-1 wrote (distance 1)", d.construct());
        assertEquals(lineOf("carried", "for (int i = 1; i < n; i++)"), d.line());
    }

    // ------------------------------------------------------------------------------------------- data

    private static DataClause clause(CompiledMethod m, String array) {
        return m.data().stream().filter(c -> c.array().name().equals(array)).findFirst()
                .orElseThrow(() -> new AssertionError("no clause for " + array + " in " + m.data()));
    }

    @Test
    void vectorAddDataClauses() {
        CompiledMethod m = offload(Kernels1D.class, "vectorAdd");
        assertEquals(3, m.data().size(), m.data()::toString);
        DataClause a = clause(m, "a");
        DataClause b = clause(m, "b");
        DataClause c = clause(m, "c");
        assertEquals(DataClause.Kind.COPYIN, a.kind());
        assertEquals(DataClause.Kind.COPYIN, b.kind());
        assertEquals(DataClause.Kind.COPYOUT, c.kind());
        for (DataClause x : m.data()) {
            assertEquals(false, x.explicit(), x::toString);
        }
        assertNull(a.coverage());
        assertNull(b.coverage());
        assertNotNull(c.coverage(), "an implicit copyout needs the coverage the runtime checks");
        assertEquals(0, c.coverage().region());
        assertEquals("0", c.coverage().offset().toString());
        assertEquals("copyout(c) implicit", c.toString());
    }

    @Test
    void saxpyDataClauses() {
        CompiledMethod m = offload(Kernels1D.class, "saxpy");
        assertEquals(2, m.data().size(), m.data()::toString);
        DataClause y = clause(m, "y");
        DataClause x = clause(m, "x");
        assertEquals(DataClause.Kind.COPY, y.kind());
        assertEquals(false, y.explicit());
        assertNull(y.coverage());
        assertEquals(DataClause.Kind.COPYIN, x.kind());
        assertEquals(false, x.explicit());
        assertEquals("copy(y) implicit", y.toString());
        assertEquals("copyin(x) implicit", x.toString());
    }

    @Test
    void shiftedExplicitDataClauses() {
        CompiledMethod m = offload(Kernels1D.class, "shifted");
        assertEquals(List.of("copyin(b)", "copyout(a)"), m.data().stream().map(DataClause::toString).toList());
        for (DataClause c : m.data()) {
            assertTrue(c.explicit());
            assertNull(c.coverage());
            assertEquals(Type.I64, c.array().element());
        }
        assertEquals(new ArrayRef.Parameter(1, "b"), m.data().get(0).array().source());
        assertEquals(new ArrayRef.Parameter(0, "a"), m.data().get(1).array().source());
    }

    @Test
    void unknownDataNameIsAnError() {
        MethodNode mn = TestClasses.method(TestClasses.node(Diagnostics.class), "unknownDataName");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Compiler.compile(TestClasses.bytes(Diagnostics.class), mn.name, mn.desc, 90));
        assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
        assertTrue(e.getMessage().contains("Diagnostics.unknownDataName"), e.getMessage());
        assertTrue(e.getMessage().contains("[a, n]"), e.getMessage());
    }

    // ------------------------------------------------------------------------------------------- kernels

    @Test
    void vectorAddKernelParamsInOrder() {
        CompiledMethod m = offload(Kernels1D.class, "vectorAdd");
        assertEquals(1, m.kernels().size());
        KernelPlan k = m.kernels().get(0);
        assertEquals("acc_Kernels1D_vectorAdd_r0", k.entry());
        List<KernelParam> p = k.params();
        assertEquals(8, p.size(), p::toString);
        assertInstanceOf(KernelParam.ErrorRecord.class, p.get(0));
        // arrays in order of first use: c (the store's target, as in Java's evaluation order), then a, b
        String[] arrays = {"c", "a", "b"};
        int[] paramIndex = {2, 0, 1};
        for (int i = 0; i < arrays.length; i++) {
            KernelParam.ArrayData data = assertInstanceOf(KernelParam.ArrayData.class, p.get(1 + 2 * i));
            KernelParam.ArrayLength len = assertInstanceOf(KernelParam.ArrayLength.class, p.get(2 + 2 * i));
            assertEquals(arrays[i], data.array().name());
            assertEquals(new ArrayRef.Parameter(paramIndex[i], arrays[i]), data.array().source());
            assertEquals(Type.F64, data.array().element());
            assertEquals(data.array(), len.array());
            boolean isOut = arrays[i].equals("c");
            assertEquals(!isOut, data.read(), arrays[i] + " read");
            assertEquals(isOut, data.written(), arrays[i] + " written");
        }
        KernelParam.Scalar n = assertInstanceOf(KernelParam.Scalar.class, p.get(7));
        assertEquals(new ArrayRef.Parameter(3, "n"), n.source());
        assertEquals(Type.I32, n.type());
    }

    @Test
    void launchShapeFollowsTheAnnotation() {
        Mapping vectorAdd = offload(Kernels1D.class, "vectorAdd").kernels().get(0).mapping();
        assertEquals("Map1", vectorAdd.name());
        assertEquals(new Mapping.FromTrip(0, Compiler.DEFAULT_VECTOR, 0, 0), vectorAdd.grid().get(0));
        assertArrayEquals(new int[] {Compiler.DEFAULT_VECTOR, 1, 1}, vectorAdd.block());
        Mapping saxpy = offload(Kernels1D.class, "saxpy").kernels().get(0).mapping();
        assertEquals(new Mapping.FromTrip(0, 256, 0, 0), saxpy.grid().get(0));
        assertArrayEquals(new int[] {256, 1, 1}, saxpy.block());
        Mapping shifted = offload(Kernels1D.class, "shifted").kernels().get(0).mapping();
        assertEquals(new Mapping.Fixed(16), shifted.grid().get(0));
        assertArrayEquals(new int[] {128, 1, 1}, shifted.block());
    }

    @Test
    void reportNamesTheLoopAndTheData() throws IOException {
        CompiledMethod m = offload(Kernels1D.class, "vectorAdd");
        int loopLine = lineOf("vectorAdd", "for (int i = 0; i < n; i++)");
        assertEquals(List.of(
                "Kernels1D.java:" + loopLine + ": kernel acc_Kernels1D_vectorAdd_r0: Map1: block(128, 1, 1); "
                        + "i from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x",
                "Kernels1D.java:   grid(ceil(trip(i) / 128) at most SMs * blocks per SM, 1, 1) x block(128, 1, 1): "
                        + "the grid depends on run-time values; the first launch's shape is reported",
                "Kernels1D.java:   line " + loopLine + ": loop over i: parallel (parallelizable): "
                        + "i from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x",
                "Kernels1D.java:   bounds of 3 accesses proven on the host before each launch (no check in the kernel "
                        + "when they hold): a at line " + (loopLine + 1) + ", b at line " + (loopLine + 1) + ", c at line "
                        + (loopLine + 1),
                "Kernels1D.java: data copyout(c) implicit",
                "Kernels1D.java: data copyin(a) implicit",
                "Kernels1D.java: data copyin(b) implicit"), m.report());
    }

    @Test
    void reportGivesTheLaunchShapeFixedOrComputedAtLaunch() {
        // gang(16) vector(128): the whole shape is known at compile time
        assertTrue(offload(Kernels1D.class, "shifted").report().contains(
                "Kernels1D.java:   grid(16, 1, 1) x block(128, 1, 1)"), () -> offload(Kernels1D.class, "shifted").report().toString());
        // Map2_4 with gang(3) vector(2) outside, gang vector(16) inside: x from j's trip count, y fixed
        List<String> jacobi = offload(org.acc4j.compiler.fixtures.Nests.class, "jacobiMap24").report();
        assertTrue(jacobi.contains("Nests.java:   grid(ceil(trip(j) / 16), 3, 1) x block(16, 2, 1):"
                + " the grid depends on run-time values; the first launch's shape is reported"), jacobi::toString);
    }

    @Test
    void errorSitesOfVectorAdd() {
        KernelPlan k = offload(Kernels1D.class, "vectorAdd").kernels().get(0);
        assertTrue(k.sites().size() >= 3, k.sites()::toString);
        assertTrue(k.sites().stream().allMatch(s -> s.kind() == org.acc4j.compiler.ir.ErrorSite.Kind.INDEX_OUT_OF_BOUNDS),
                k.sites()::toString);
        assertEquals(List.of("a", "b", "c"), k.sites().stream().map(s -> s.array()).distinct().sorted().toList());
    }
}
