package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link AffineKernels} on the GPU against plain Java, every element bit for bit: their accesses are proven on the
 * host, so the kernel without bounds checks runs, each access addressed from its subscript's linear form. Skips,
 * saying why, where there is no device.
 */
@Tag("gpu")
class AffineGpuTest {
    static List<AffineKernels.Case> cases() {
        return AffineKernels.cases();
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void provenAccessesGivePlainJavasBits(AffineKernels.Case c) throws Exception {
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        Object[] args = c.copy();
        assertTrue(AccRuntime.offload(AffineKernels.class, c.method().getName(), c.descriptor(), null, args),
                c + " did not run on the device");
        AffineKernels.assertSameBits(plain, args, c + " on the GPU");
    }
}
