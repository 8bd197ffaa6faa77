package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Every {@link Reduce} kernel on the GPU against plain Java (exact where Java's result is, within the bound for
 * floating-point sums and products), at lengths from 0 to about 2^18 (many blocks), and twice: the same call
 * gives the same bits. Skips, saying why, where there is no device.
 */
@Tag("gpu")
class ReduceGpuTest {
    static List<ReduceCases.Case> cases() {
        return ReduceCases.cases(7, 64);
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void reductionOnTheGpuMatchesPlainJava(ReduceCases.Case c) throws Exception {
        Method k = c.method();
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        Object[] plainArgs = c.copy();
        Object expected = k.invoke(null, plainArgs);
        Object[] args = c.copy();
        Object[] got = AccRuntime.offloadValue(Reduce.class, k.getName(), desc, null, args);
        assertNotNull(got, c + " did not run on the device");
        c.check(expected, got[0], plainArgs, args, "on the GPU");
        if (!k.getName().equals("normalize")) {
            Object[] again = AccRuntime.offloadValue(Reduce.class, k.getName(), desc, null, c.copy());
            assertNotNull(again, c + " did not run on the device the second time");
            assertEquals(got[0], again[0], c + ": two calls gave different bits");
        }
    }
}
