package org.acc4j.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The multicore mode's setup at small sizes, without the agent: each sample's {@code @Kernels} method compiled, run on
 * the multicore target and checked against plain Java (it throws on a difference); then timed calls give the same
 * result again.
 */
class MulticoreStateTest {
    @ParameterizedTest
    @CsvSource({"jacobi,37,default", "dgemm,29,default", "gaussblur,33,default", "copy,31,1d_naive",
        "transpose,31,naive", "vectoradd,1000,default", "stencil,13x11x9,default", "laplacian,13x11x9,default",
        "wave13pt,13x11x9,default", "dot,1000,default", "spmv,5000,default"})
    void everySampleRunsOnTheMulticoreTargetAsPlainJava(String sample, String size, String variant) {
        Sample s = switch (sample) {
            case "dot" -> DotBench.SAMPLE;
            case "spmv" -> SpmvBench.SAMPLE;
            default -> Sample.of(sample);
        };
        MulticoreState m = new MulticoreState(s) { };
        m.setUp(size, variant);
        try {
            Object first = m.run();
            for (int k = 0; k < 3; k++) {
                assertEquals(first, m.run(), "a call's value is the same bits each time");
            }
            m.workload.check(sample + " multicore, again", m.args, m.run());
        } finally {
            m.tearDown();
        }
    }
}
