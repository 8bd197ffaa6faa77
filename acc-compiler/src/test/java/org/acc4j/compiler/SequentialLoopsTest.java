package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.acc4j.compiler.cudac.CudaCRenderer;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.SequentialLoops;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.IrPrinter;
import org.acc4j.compiler.ir.Stmt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sequential loops that are not counted, inside a parallel loop ({@link SequentialLoops}): each kernel's outer loop
 * is parallel and its inner loop a {@link Stmt.While}; the kernel assembles with ptxas, and the interpreter's result
 * equals plain Java's, element by element, on seeded random inputs; the Mandelbrot kernel's PTX is golden.
 */
class SequentialLoopsTest {
    static final String[] KERNELS = {"mandelbrot", "search", "find", "collatz", "strided", "orAndDo", "nested",
        "labelled", "guarded", "negatives", "digitSum"};

    @ParameterizedTest
    @ValueSource(strings = {"mandelbrot", "search", "find", "collatz", "strided", "orAndDo", "nested", "labelled",
        "guarded", "negatives", "digitSum"})
    void runsAsJavaDoes(String name) throws Exception {
        CompiledMethod m = CompilerTest.offload(SequentialLoops.class, name);
        KernelPlan k = m.kernels().get(0);
        assertEquals("Map1", k.mapping().name(), () -> name + ": " + k.mapping());
        assertTrue(hasWhile(k.region().loop().body()), () -> name + " has no while loop:\n"
                + IrPrinter.print(m.body().body()));
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            for (KernelPlan p : m.kernels()) {
                assertNull(Ptxas.assemble(ptxas, p.entry(), p.ptx()), () -> "ptxas rejects " + p.entry());
                if (p.unchecked() != null) {
                    assertNull(Ptxas.assemble(ptxas, p.unchecked().entry(), p.unchecked().ptx()),
                            () -> "ptxas rejects " + p.unchecked().entry());
                }
            }
        }
        Method java = method(name);
        for (int maxBlocks : new int[] {1, 1000}) {
            for (long seed = 1; seed <= 4; seed++) {
                Object[] device = args(name, seed);
                Object[] plain = NestInputs.copy(device);
                Object expected = java.invoke(null, plain);
                Object result = KernelInterpreter.run(m, device, maxBlocks);
                String what = name + " (seed " + seed + ", " + maxBlocks + " blocks at most)";
                assertEquals(expected, result, what + ": the returned value");
                for (int a = 0; a < device.length; a++) {
                    NestInputs.assertDeepEquals(plain[a], device[a], what + ", argument " + a);
                }
            }
        }
    }

    @Test
    void mandelbrotIsGoldenAndItsLoopAWhile() throws Exception {
        CompiledMethod m = CompilerTest.offload(SequentialLoops.class, "mandelbrot");
        Stmt.For top = m.kernels().get(0).region().loop();
        Stmt.While w = (Stmt.While) top.body().stream().filter(s -> s instanceof Stmt.While).findFirst().orElseThrow();
        assertEquals("(((x * x) + (y * y)) <= 4.0)", w.cond().toString());
        assertTrue(w.body().get(0) instanceof Stmt.If i && i.cond().toString().equals("(it >= max)")
                && i.then().size() == 1 && i.then().get(0) instanceof Stmt.Break && i.otherwise().isEmpty(),
                () -> "the test's second half is an if that breaks:\n" + IrPrinter.print(w.body()));
        for (KernelPlan k : m.kernels()) {
            Golden.check(PtxGoldenTest.GOLDEN, k.entry() + ".ptx", k.ptx());
        }
    }

    @Test
    void rendersAsCudaC() {
        for (String name : KERNELS) {
            CompiledMethod m = CompilerTest.offload(SequentialLoops.class, name);
            for (CudaCRenderer.Rendering r : CudaCRenderer.render(m, null)) {
                assertTrue(r.source().contains("while (") || r.source().contains("for (;;)"), () -> name + ":\n" + r.source());
            }
        }
    }

    @Test
    void reportSaysTheLoopIsSequential() {
        CompiledMethod m = CompilerTest.offload(SequentialLoops.class, "search");
        assertTrue(m.report().stream().anyMatch(l -> l.contains("sequential in each thread (not a counted loop)")),
                () -> String.join("\n", m.report()));
    }

    private static boolean hasWhile(java.util.List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.While || s instanceof Stmt.For f && hasWhile(f.body())
                    || s instanceof Stmt.If i && (hasWhile(i.then()) || hasWhile(i.otherwise()))) {
                return true;
            }
        }
        return false;
    }

    private static Method method(String name) {
        return Arrays.stream(SequentialLoops.class.getMethods()).filter(x -> x.getName().equals(name)).findFirst()
                .orElseThrow();
    }

    /** Seeded inputs, sizes that are not multiples of a block. */
    static Object[] args(String name, long seed) {
        Random r = new Random(seed);
        int n = 100 + r.nextInt(200);
        return switch (name) {
            case "mandelbrot" -> {
                double[] cx = new double[n];
                double[] cy = new double[n];
                for (int i = 0; i < n; i++) {
                    cx[i] = -2.0 + 2.5 * r.nextDouble();
                    cy[i] = -1.25 + 2.5 * r.nextDouble();
                }
                yield new Object[] {new int[n], cx, cy, n, 50 + r.nextInt(200)};
            }
            case "search" -> {
                int m = 1 + r.nextInt(40);
                yield new Object[] {new int[n], NestInputs.doubles(r, n * m), NestInputs.doubles(r, n), n, m};
            }
            case "find" -> {
                int m = 1 + r.nextInt(60);
                yield new Object[] {new int[n], ints(r, n, 80), ints(r, m, 80), n, m};
            }
            case "collatz" -> {
                int[] start = new int[n];
                for (int i = 0; i < n; i++) {
                    start[i] = 1 + r.nextInt(100_000);
                }
                yield new Object[] {new int[n], start, n, 20 + r.nextInt(300)};
            }
            case "strided" -> {
                int m = 1 + r.nextInt(50);
                yield new Object[] {new double[n], NestInputs.doubles(r, n * m), n, m, 1 + r.nextInt(4)};
            }
            case "orAndDo" -> new Object[] {new int[n], NestInputs.floats(r, n + 7), n, r.nextInt(30)};
            case "nested" -> {
                long[] a = new long[n + 13];
                for (int i = 0; i < a.length; i++) {
                    a[i] = r.nextInt(200) - 60;
                }
                yield new Object[] {new long[n], a, n, r.nextInt(40)};
            }
            case "labelled" -> {
                int m = 1 + r.nextInt(12);
                yield new Object[] {new int[n], ints(r, n + 31, 9), n, m};
            }
            case "guarded" -> {
                int m = 1 + r.nextInt(30);
                double[] a = NestInputs.doubles(r, n * m);
                for (int i = 0; i < a.length; i++) {
                    a[i] = r.nextInt(8) == 0 ? -1 : 1 + a[i];
                }
                yield new Object[] {new int[n], a, n, m};
            }
            case "negatives" -> {
                double[][] rows = new double[n][];
                for (int i = 0; i < n; i++) {
                    rows[i] = new double[r.nextInt(12)];
                    for (int k = 0; k < rows[i].length; k++) {
                        rows[i][k] = r.nextInt(30) == 0 ? -r.nextDouble() : r.nextDouble();
                    }
                }
                yield new Object[] {rows, n};
            }
            case "digitSum" -> {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = r.nextInt();
                }
                yield new Object[] {a, n};
            }
            default -> throw new IllegalArgumentException(name);
        };
    }

    private static int[] ints(Random r, int n, int bound) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt(bound);
        }
        return a;
    }
}
