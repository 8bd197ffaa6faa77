package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.SerialKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.tree.MethodNode;

/**
 * Serial nests ({@code @Kernels(serial = true)}, and an outer loop marked {@code @Loop(seq = true)}): one kernel of
 * one thread, whose PTX assembles, run by the kernel interpreter against the same methods as plain Java on random
 * inputs from fixed seeds, every element bit for bit (one thread keeps Java's order, floating point included).
 */
class SerialTest {
    private static CompiledMethod offload(String name) throws Exception {
        MethodNode m = TestClasses.method(TestClasses.node(SerialKernels.class), name);
        Compiler.Result r = Compiler.compile(TestClasses.bytes(SerialKernels.class), name, m.desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        CompiledMethod method = ((Compiler.Offload) r).method();
        Path ptxas = Ptxas.find();
        for (KernelPlan k : method.kernels()) {
            assertEquals(0, k.region().mapping().levels().size(), "no parallel level");
            assertArrayEquals(new int[] {1, 1, 1}, k.region().mapping().block());
            assertTrue(k.region().mapping().shape().startsWith("grid(1, 1, 1) x block(1, 1, 1)"),
                    k.region().mapping().shape());
            if (ptxas != null) {
                assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry() + ":\n" + k.ptx());
                if (k.unchecked() != null) {
                    assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()));
                }
            }
        }
        return method;
    }

    private static void sameBits(double[] expected, double[] actual) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals(Double.doubleToLongBits(expected[i]), Double.doubleToLongBits(actual[i]), "element " + i);
        }
    }

    @Test
    void aDoublePrefixSumKeepsJavasBits() throws Exception {
        Random r = new Random(1601);
        int n = 3001;
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextGaussian() * Math.pow(10, r.nextInt(12) - 6);
        }
        double[] b = new double[n];
        double[] expected = new double[n];
        CompiledMethod m = offload("prefixSum");
        assertTrue(m.report().stream().anyMatch(l -> l.contains("serial: the loop over i and every loop in it run on"
                + " one device thread (@Kernels(serial = true))")), m.report()::toString);
        KernelInterpreter.run(m, new Object[] {a, b, n}, 8);
        SerialKernels.prefixSum(a, expected, n);
        sameBits(expected, b);
        // the dumps' CUDA C rendering of a one-thread kernel: the loop as Java runs it
        String cu = org.acc4j.compiler.cudac.CudaCRenderer.render(m, null).get(0).source();
        assertTrue(cu.contains("acc_SerialKernels_prefixSum_r0"), cu);
    }

    @Test
    void aRecurrenceInPlace() throws Exception {
        Random r = new Random(1602);
        int n = 2049;
        long[] a = r.longs(n).toArray();
        long[] expected = a.clone();
        KernelInterpreter.run(offload("recurrence"), new Object[] {a, n}, 8);
        SerialKernels.recurrence(expected, n);
        assertArrayEquals(expected, a);
    }

    @Test
    void anOuterLoopMarkedSeqIsSerial() throws Exception {
        Random r = new Random(1603);
        int n = 1777;
        int[] a = r.ints(n).toArray();
        int[] b = new int[n];
        int[] expected = new int[n];
        CompiledMethod m = offload("exclusiveXor");
        assertTrue(m.kernels().get(0).region().why().startsWith("serial (@Loop(seq = true) on its outer loop)"),
                m.kernels().get(0).region().why());
        KernelInterpreter.run(m, new Object[] {a, b, n}, 8);
        SerialKernels.exclusiveXor(a, expected, n);
        assertArrayEquals(expected, b);
    }

    @Test
    void innerLoopsAndAReductionOnOneThread() throws Exception {
        Random r = new Random(1604);
        int n = 300;
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) r.nextGaussian();
        }
        float[] out = new float[n];
        float[] expected = new float[n];
        Object total = KernelInterpreter.run(offload("triangle"), new Object[] {a, out, n}, 8);
        double javaTotal = SerialKernels.triangle(a, expected, n);
        assertArrayEquals(expected, out);
        assertEquals(Double.doubleToLongBits(javaTotal), Double.doubleToLongBits((Double) total),
                "one thread adds in Java's order");
    }

    @Test
    void aParallelLoopMarkedSerialRunsOnOneThread() throws Exception {
        Random r = new Random(1605);
        int n = 999;
        double[] a = r.doubles(n).toArray();
        double[] out = new double[n];
        double[] expected = new double[n];
        KernelInterpreter.run(offload("scale"), new Object[] {a, out, 2.5, n}, 8);
        SerialKernels.scale(a, expected, 2.5, n);
        sameBits(expected, out);
    }

    @Test
    void anUnmarkedSequentialLoopStaysOnTheHostWithItsReason() throws Exception {
        MethodNode m = TestClasses.method(TestClasses.node(SerialKernels.class), "unmarked");
        Compiler.Result r = Compiler.compile(TestClasses.bytes(SerialKernels.class), "unmarked", m.desc, 90);
        Compiler.Host h = assertInstanceOf(Compiler.Host.class, r);
        assertTrue(h.reason().toString().contains("a[i - 1]") || h.reason().toString().contains("a["),
                h.reason().toString());
    }
}
