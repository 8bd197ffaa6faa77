package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.ScanInputs;
import org.acc4j.compiler.fixtures.ScanKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.tree.MethodNode;

/**
 * Scans ({@code s = s op a[i]; b[i] = s;} and the exclusive order) for every operator and type: detected and
 * reported, compiled to the device scan whose PTX assembles, and run by the kernel interpreter (the device's grouping)
 * against the same methods as plain Java on random inputs from fixed seeds, over several tiles and a partial one:
 * every element bit for bit for integers and {@code min}/{@code max}, within a stated bound for float sums and
 * products. A float sum without {@code relaxed} stays sequential and says why.
 */
class ScansTest {
    private static CompiledMethod offload(String name) throws Exception {
        MethodNode m = TestClasses.method(TestClasses.node(ScanKernels.class), name);
        Compiler.Result r = Compiler.compile(TestClasses.bytes(ScanKernels.class), name, m.desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        CompiledMethod method = ((Compiler.Offload) r).method();
        Path ptxas = Ptxas.find();
        for (KernelPlan k : method.kernels()) {
            if (ptxas != null) {
                assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry() + ":\n" + k.ptx());
                if (k.unchecked() != null) {
                    assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()));
                }
            }
        }
        return method;
    }

    @Test
    void everyOperatorAndTypeGivesJavasScan() throws Exception {
        Random r = new Random(1640);
        int cases = 0;
        for (Method jm : ScanKernels.class.getDeclaredMethods()) {
            String name = jm.getName();
            if (!name.endsWith("Incl") && !name.endsWith("Excl")) {
                continue;
            }
            cases++;
            String op = name.replaceAll("[A-Z].*", "");
            Class<?> type = jm.getParameterTypes()[0].getComponentType();
            boolean inclusive = name.endsWith("Incl");
            CompiledMethod m = offload(name);
            String symbol = switch (op) {
                case "add" -> "+";
                case "mul" -> "*";
                case "and" -> "&";
                case "or" -> "|";
                case "xor" -> "^";
                default -> op;
            };
            String said = "scan: " + (inclusive ? "inclusive " : "exclusive ") + symbol + " over a into b";
            assertTrue(m.report().stream().anyMatch(l -> l.contains(said)), () -> name + ": " + m.report());
            assertNotNull(m.kernels().get(0).region().scan(), name);
            int tile = type == int.class || type == float.class ? 4096 : 2048;
            int n = 2 * tile + 1001;
            int lo = 7;
            Object a = ScanInputs.randomArray(type, op, r, n, 1e-3);
            Object s0 = Array.get(ScanInputs.randomArray(type, op, r, 1, 1e-3), 0);
            Object b = Array.newInstance(type, n);
            Object expected = Array.newInstance(type, n);
            jm.invoke(null, a, expected, s0, lo, n);
            KernelInterpreter.run(m, new Object[] {a, b, s0, lo, n}, 64);
            ScanInputs.assertScan(name, op, inclusive, a, s0, lo, n, expected, b, 1);
        }
        assertEquals(44, cases);
    }

    @Test
    void aFloatSumWithoutRelaxedStaysSequentialAndSaysWhy() throws Exception {
        MethodNode m = TestClasses.method(TestClasses.node(ScanKernels.class), "addDoubleStrict");
        Compiler.Host h = assertInstanceOf(Compiler.Host.class,
                Compiler.compile(TestClasses.bytes(ScanKernels.class), "addDoubleStrict", m.desc, 90));
        assertTrue(h.reason().toString().contains("scan: inclusive + over a into b of double values: a parallel scan"
                + " regroups the sums, which changes their rounding from Java's left-to-right loop;"
                + " @Kernels(relaxed = true) allows it"), h.reason().toString());
    }

    @Test
    void inPlaceAndOutOfBoundsAreJavas() throws Exception {
        Random r = new Random(1641);
        int n = 5000;
        long[] a = r.longs(n).toArray();
        long[] expected = a.clone();
        ScanKernels.inPlace(expected, n);
        CompiledMethod m = offload("inPlace");
        KernelInterpreter.run(m, new Object[] {a, n}, 64);
        assertArrayEquals(expected, a);
        // the dumps' CUDA C rendering points at the PTX, the scan's only form
        String cu = org.acc4j.compiler.cudac.CudaCRenderer.render(m, null).get(0).source();
        assertTrue(cu.contains("scan: inclusive + over a into a"), cu);
        // past the end: Java's exception, at the index Java's loop fails at
        CompiledMethod incl = offload("addIntIncl");
        int[] x = new int[100];
        int[] y = new int[90];
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> KernelInterpreter.run(incl, new Object[] {x, y, 0, 0, 100}, 64));
        assertEquals("Index 90 out of bounds for length 90", e.getMessage());
        ArrayIndexOutOfBoundsException neg = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> KernelInterpreter.run(incl, new Object[] {x, y, 0, -3, 10}, 64));
        assertEquals("Index -3 out of bounds for length 100", neg.getMessage());
        assertThrows(AssertionError.class, () -> offload("notAScan"), "not of a scan's shape: stays on the host");
    }
}
