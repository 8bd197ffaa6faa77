package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.PlatformForms;
import org.acc4j.compiler.fixtures.PlatformInputs;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.jvm.HostKernels;
import org.acc4j.compiler.jvm.TestPool;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The platform's exact functions ({@link PlatformForms}) compile to the device, and give plain Java's results bit
 * for bit on the kernel interpreter and on the multicore target, on random inputs mixed with the special values
 * (NaN, signed zeros, infinities, halves, the extremes), every element compared; their PTX assembles where ptxas is
 * on the PATH.
 */
class PlatformCallsTest {
    /** The plain-Java reference: {@code <name>Reference} where the kernel calls Math's functions within 1 ulp. */
    static Method reference(String name) {
        for (Method m : PlatformForms.class.getDeclaredMethods()) {
            if (m.getName().equals(name + "Reference")) {
                return m;
            }
        }
        return method(name);
    }

    static Method method(String name) {
        for (Method m : PlatformForms.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rounding", "signs", "bitsOfIntegers", "bitsOfFloats", "transcendental", "neighbours"})
    void compilesAndMatchesPlainJavaOnBothTargets(String kernel) throws Exception {
        CompiledMethod cm = CompilerTest.offload(PlatformForms.class, kernel);
        Object[] expected = PlatformInputs.args(kernel, new Random(kernel.hashCode()));
        reference(kernel).invoke(null, expected);

        Object[] interpreted = PlatformInputs.args(kernel, new Random(kernel.hashCode()));
        KernelInterpreter.run(cm, interpreted, 3);
        for (int i = 0; i < expected.length; i++) {
            NestInputs.assertDeepEquals(expected[i], interpreted[i], kernel + " on the interpreter, argument " + i);
        }

        Object[] cores = PlatformInputs.args(kernel, new Random(kernel.hashCode()));
        try (TestPool pool = new TestPool(3)) {
            HostKernels.of(cm).run(s -> cores[((ArrayRef.Parameter) s).index()], cores, pool, null);
        }
        for (int i = 0; i < expected.length; i++) {
            NestInputs.assertDeepEquals(expected[i], cores[i], kernel + " on the multicore target, argument " + i);
        }

        Path ptxas = Ptxas.find();
        Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        for (KernelPlan k : cm.kernels()) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
            if (k.unchecked() != null) {
                assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()), k.unchecked().entry());
            }
        }
    }
}
