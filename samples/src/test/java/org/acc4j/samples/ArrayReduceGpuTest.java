package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.List;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@link ArrayReduce} and {@link PrivateData} kernel on the GPU against plain Java, every element of every array, bit for bit (all
 * its results are defined exactly), at sizes up to many blocks, twice (the second call gives the same). Skips,
 * saying why, where there is no device.
 */
@Tag("gpu")
class ArrayReduceGpuTest {
    static List<ArrayReduceCases.Case> cases() {
        return ArrayReduceCases.cases(17, 64);
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void onTheGpuMatchesPlainJava(ArrayReduceCases.Case c) throws Exception {
        Method k = c.method();
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        Object[] expected = c.copy();
        k.invoke(null, expected);
        for (int run = 0; run < 2; run++) {
            Object[] args = c.copy();
            Object[] got = AccRuntime.offloadValue(k.getDeclaringClass(), k.getName(), desc, null, args);
            assertNotNull(got, c + " did not run on the device");
            c.check(expected, args, "on the GPU, call " + (run + 1));
        }
    }
}
