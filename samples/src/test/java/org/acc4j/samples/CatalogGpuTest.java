package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.List;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.samples.Catalog.Entry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sample kernel (each mapping, flat and {@code double[][]}) on the GPU through the runtime, against the
 * plain-Java reference, every element bit for bit, at two sizes. Skips, saying why, where there is no device.
 */
@Tag("gpu")
class CatalogGpuTest {
    static List<Entry> entries() {
        return Catalog.entries();
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("entries")
    void kernelOnTheGpuMatchesPlainJava(Entry e) throws Exception {
        Method k = e.kernelMethod();
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        for (int scale : new int[] {1, 7}) {
            Object[] args = e.args(CatalogPlainTest.SEED + scale, scale);
            Object[] expected = Catalog.deepCopy(args);
            e.referenceMethod().invoke(null, expected);
            boolean on = AccRuntime.offload(k.getDeclaringClass(), k.getName(), desc, null, args);
            assertTrue(on, e.name() + " did not run on the device");
            assertNull(Catalog.firstDifference(expected, args), e.name() + " at scale " + scale);
            assertTrue(Catalog.anyOutputNonZero(e, args), e.name() + " wrote nothing");
        }
    }
}
