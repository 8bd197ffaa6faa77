package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.fixtures.OnDevice;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.tree.MethodNode;

/**
 * {@code Acc.onDevice()} inside a kernel compiles to the constant true (the kernel runs on the device), directly and
 * in an inlined callee; the interpreter, standing for the device, gives the device's answer, and plain Java on the
 * host keeps the host backend's.
 */
class OnDeviceTest {
    private static CompiledMethod offload(String name) throws Exception {
        MethodNode m = TestClasses.method(TestClasses.node(OnDevice.class), name);
        Compiler.Result r = Compiler.compile(TestClasses.bytes(OnDevice.class), name, m.desc, 90,
                InliningTest.CLASS_PATH);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        CompiledMethod method = ((Compiler.Offload) r).method();
        Path ptxas = Ptxas.find();
        for (KernelPlan k : method.kernels()) {
            if (ptxas != null) {
                assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry() + ":\n" + k.ptx());
            }
        }
        return method;
    }

    private static double[] doubles(int n) {
        Random r = new Random(7);
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble() * 100 - 50;
        }
        return a;
    }

    @Test
    void aConditionOnOnDeviceTakesTheDeviceBranch() throws Exception {
        int n = 1000;
        double[] a = doubles(n);
        double[] out = new double[n];
        KernelInterpreter.run(offload("select"), new Object[] {a, out, n}, 3);
        double[] expected = new double[n];
        for (int i = 0; i < n; i++) {
            expected[i] = 2 * a[i];
        }
        assertArrayEquals(expected, out);
        // plain Java on the host: the host backend says false
        double[] host = new double[n];
        OnDevice.select(a, host, n);
        assertFalse(Acc.onDevice());
        double[] minusOne = new double[n];
        java.util.Arrays.fill(minusOne, -1);
        assertArrayEquals(minusOne, host);
    }

    @Test
    void onDeviceIsTrueAsAValue() throws Exception {
        int n = 513;
        boolean[] flag = new boolean[n];
        int[] count = new int[n];
        KernelInterpreter.run(offload("flags"), new Object[] {flag, count, n}, 2);
        boolean[] all = new boolean[n];
        java.util.Arrays.fill(all, true);
        assertArrayEquals(all, flag);
        assertArrayEquals(java.util.stream.IntStream.range(0, n).toArray(), count);
    }

    @Test
    void onDeviceInAnInlinedCalleeIsTrue() throws Exception {
        int n = 700;
        double[] a = doubles(n);
        double[] out = new double[n];
        CompiledMethod m = offload("throughCall");
        KernelInterpreter.run(m, new Object[] {a, out, n}, 1000);
        double[] expected = new double[n];
        for (int i = 0; i < n; i++) {
            expected[i] = a[i] + 1;
        }
        assertArrayEquals(expected, out);
    }
}
