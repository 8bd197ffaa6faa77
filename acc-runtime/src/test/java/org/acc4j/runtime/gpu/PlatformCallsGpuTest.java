package org.acc4j.runtime.gpu;

import static org.acc4j.compiler.fixtures.NestInputs.assertDeepEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.fixtures.PlatformForms;
import org.acc4j.compiler.fixtures.PlatformInputs;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The platform's exact functions on the GPU ({@link PlatformForms}: {@code Math.round}, {@code signum},
 * {@code copySign}, the bit functions of {@code Integer} and {@code Long}, the bits of {@code double} and
 * {@code float}, {@code compare}) and Math's functions within 1 ulp (against the device's bits, {@code AccMath*}): each
 * kernel through the runtime as the agent calls it, against plain Java on seeded inputs mixed with the special
 * values, every element compared bit for bit.
 */
@Tag("gpu")
class PlatformCallsGpuTest {
    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @AfterEach
    void drained() {
        if (AccRuntime.get().onDevice()) {
            Acc.waitAll();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rounding", "signs", "bitsOfIntegers", "bitsOfFloats", "transcendental", "neighbours"})
    void matchesPlainJava(String kernel) throws Exception {
        Method m = null;
        Method reference = null;
        for (Method k : PlatformForms.class.getDeclaredMethods()) {
            if (k.getName().equals(kernel)) {
                m = k;
            }
            if (k.getName().equals(kernel + "Reference")) {
                reference = k;
            }
        }
        Object[] plain = PlatformInputs.args(kernel, new Random(kernel.hashCode()));
        (reference != null ? reference : m).invoke(null, plain);
        Object[] gpu = PlatformInputs.args(kernel, new Random(kernel.hashCode()));
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        assertTrue(AccRuntime.offload(PlatformForms.class, kernel, desc, null, gpu), kernel + " ran on the host");
        for (int i = 0; i < plain.length; i++) {
            assertDeepEquals(plain[i], gpu[i], kernel + " on the GPU, argument " + i);
        }
    }
}
