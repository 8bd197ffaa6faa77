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
 * The {@link ArrayReduce} kernels with reordered floating-point sums on the GPU ({@code weightedSums}: atomic adds
 * into {@code double} elements; {@code rowSumsVector}: a vector reduction per row), every output element within the
 * bound of plain Java's ({@link ReorderedReduceCases}), at sizes up to many blocks, twice. Skips, saying why, where
 * there is no device.
 */
@Tag("gpu")
class ReorderedReduceGpuTest {
    static List<ReorderedReduceCases.Case> cases() {
        return ReorderedReduceCases.cases(19, 64);
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void onTheGpuIsWithinTheBoundOfPlainJava(ReorderedReduceCases.Case c) throws Exception {
        Method k = ReorderedReduceCases.method(c.method());
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
