package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.MadeObjects;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.jvm.HostKernels;
import org.acc4j.compiler.jvm.TestPool;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Objects made in a nest ({@link MadeObjects}): their fields become locals of each thread, so the nests compile to
 * the device and give plain Java's results bit for bit on the kernel interpreter and on the multicore target, every
 * element compared; their PTX assembles where ptxas is on the PATH; a class with a field that is not final is refused
 * with its reason.
 */
class MadeObjectsTest {
    static Object[] args(String kernel, long seed) {
        Random r = new Random(seed);
        int n = 900;
        return switch (kernel) {
            case "mandelbrot" -> new Object[] {new int[48 * 40], 48, 40, 200};
            case "vectors" -> new Object[] {gaussians(r, n), gaussians(r, n), gaussians(r, n), new double[2 * n], n};
            case "branches" -> new Object[] {gaussians(r, n), new double[3 * n], n};
            default -> throw new IllegalArgumentException(kernel);
        };
    }

    private static double[] gaussians(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }

    private static Compiler.Result compile(String kernel) {
        return CompilerTest.compile(MadeObjects.class, kernel, InliningTest.CLASS_PATH);
    }

    private static Method method(String name) {
        for (Method m : MadeObjects.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mandelbrot", "vectors", "branches"})
    void compilesAndMatchesPlainJavaOnBothTargets(String kernel) throws Exception {
        Compiler.Result r = compile(kernel);
        assertTrue(r instanceof Compiler.Offload, () -> kernel + " stays on the host: " + ((Compiler.Host) r).reason());
        CompiledMethod cm = ((Compiler.Offload) r).method();
        Object[] expected = args(kernel, 5);
        method(kernel).invoke(null, expected);
        Object[] interpreted = args(kernel, 5);
        KernelInterpreter.run(cm, interpreted, 3);
        Object[] cores = args(kernel, 5);
        try (TestPool pool = new TestPool(3)) {
            HostKernels.of(cm).run(s -> cores[((ArrayRef.Parameter) s).index()], cores, pool, null);
        }
        for (int i = 0; i < expected.length; i++) {
            NestInputs.assertDeepEquals(expected[i], interpreted[i], kernel + " on the interpreter, argument " + i);
            NestInputs.assertDeepEquals(expected[i], cores[i], kernel + " on the multicore target, argument " + i);
        }
        Path ptxas = Ptxas.find();
        Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        for (KernelPlan k : cm.kernels()) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
        }
    }

    @Test
    void anObjectWithAFieldThatIsNotFinalIsRefused() throws Exception {
        Compiler.Result r = compile("mutable");
        assertTrue(r instanceof Compiler.Host, "an object whose field is not final");
        String why = ((Compiler.Host) r).reason().toString();
        assertTrue(why.contains("whose field v is not final"), why);
    }
}
