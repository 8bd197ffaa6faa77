package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.plan.HostNest;
import org.acc4j.runtime.launch.Multicore;
import org.acc4j.samples.Catalog.Entry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sample kernel on the multicore target (its IR as JVM bytecode, chunks on a fork/join pool of 1, 2 and 5
 * threads), against the plain-Java reference, every output element bit for bit; a reduction's value is the same bits
 * on every run with the same thread count.
 */
class CatalogMulticoreTest {
    private static final List<Multicore> POOLS = List.of(new Multicore(1, null, null), new Multicore(2, null, null),
            new Multicore(5, null, null));

    static List<Entry> entries() {
        return Catalog.entries();
    }

    @AfterAll
    static void close() {
        POOLS.forEach(Multicore::close);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("entries")
    void multicoreKernelMatchesPlainJava(Entry e) throws Exception {
        CompiledMethod m = CatalogInterpreterTest.compile(e.kernelMethod());
        HostNest hk = HostNest.of(m);
        Object[] expected = Catalog.deepCopy(e.args(CatalogPlainTest.SEED, 1));
        e.referenceMethod().invoke(null, expected);
        for (Multicore pool : POOLS) {
            Object first = null;
            for (int run = 0; run < 2; run++) {
                Object[] args = e.args(CatalogPlainTest.SEED, 1);
                Object value = hk.run(CatalogMulticoreTest::noField, null, args, pool, null);
                assertNull(Catalog.firstDifference(expected, args), e.name() + " on " + pool.threads() + " threads");
                assertTrue(Catalog.anyOutputNonZero(e, args), e.name() + " wrote nothing");
                if (run == 0) {
                    first = value;
                } else {
                    assertEquals(first, value, e.name() + ": the value differs between runs on " + pool.threads()
                            + " threads");
                }
            }
        }
    }

    /** Sample kernels take parameters only. */
    static Object noField(org.acc4j.compiler.plan.ValueSource s, Object self, Object[] args) {
        throw new IllegalStateException("the field " + s.name() + " (sample kernels take parameters)");
    }
}
