package org.acc4j.compiler.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.jvm.HostKernels;
import org.acc4j.compiler.jvm.TestPool;
import org.junit.jupiter.api.Test;

/**
 * The differential fuzzer's seeds on the multicore backend: each nest the compiler offloads is turned into JVM
 * bytecode and run in chunks on a pool of 1 and of 3 threads, against plain Java, bit for bit (or the same exception
 * with the same message, and then nothing written).
 */
class MulticoreFuzzTest {
    @Test
    void randomNestsMatchPlainJavaOnEveryThreadCount() throws Exception {
        Harness.Tally tally = new Harness.Tally();
        try (TestPool one = new TestPool(1); TestPool three = new TestPool(3)) {
            for (long s = FuzzTest.FIRST; s < FuzzTest.FIRST + FuzzTest.COUNT; s += Fuzz.BATCH) {
                Batch b = Batch.of(s, (int) Math.min(Fuzz.BATCH, FuzzTest.FIRST + FuzzTest.COUNT - s), FuzzTest.CI);
                Javac.Loader loader = Fuzz.load(b, tally);
                if (loader == null) {
                    continue;
                }
                Class<?> c = loader.loadClass(b.className());
                byte[] bytes = loader.getResourceAsStream(b.className().replace('.', '/') + ".class").readAllBytes();
                for (Nest n : b.nests()) {
                    tally.add(n, run(n, Fuzz.method(c, n), bytes, one, three));
                }
            }
        }
        System.out.print("fuzz (multicore), seeds " + FuzzTest.FIRST + ".." + (FuzzTest.FIRST + FuzzTest.COUNT - 1)
                + ": " + tally.summary());
        assertTrue(tally.failures.isEmpty(), tally::summary);
        assertEquals(FuzzTest.COUNT, tally.nests);
        assertTrue(tally.count(Outcome.Kind.OFFLOADED) > FuzzTest.COUNT / 3, tally::summary);
    }

    static Outcome run(Nest nest, Method plainJava, byte[] classFile, TestPool... pools) {
        Object c = Harness.compile(nest, classFile);
        if (c instanceof Outcome o) {
            return o;
        }
        CompiledMethod m = (CompiledMethod) c;
        HostKernels hk;
        try {
            hk = HostKernels.of(m);
        } catch (HostKernels.Unsupported u) {
            return Outcome.failed("the multicore backend refused an offloaded nest: " + u.getMessage());
        }
        Object[] expected = nest.args();
        Throwable javaThrew = Harness.plain(plainJava, expected);
        String shared = Harness.aliased(m, nest.args());
        if (shared != null) {
            return new Outcome(Outcome.Kind.HOST_AT_LAUNCH, shared);
        }
        Outcome last = null;
        for (TestPool pool : pools) {
            Object[] actual = nest.args();
            Object[] before = nest.args();
            Throwable threw;
            try {
                hk.run(s -> ((ArrayRef.Parameter) s).index() >= 0 ? actual[((ArrayRef.Parameter) s).index()] : null,
                        actual, pool, null);
                threw = null;
            } catch (HostKernels.HostInstead h) {
                return new Outcome(Outcome.Kind.HOST_AT_LAUNCH, h.getMessage());
            } catch (RuntimeException | StackOverflowError e) {
                threw = e;
                if (!HostKernels.raisedByKernel(e)) {
                    return Outcome.failed("the multicore backend failed: " + Harness.stack(e));
                }
            }
            last = Harness.compare("multicore (" + pool.threads() + " threads)", nest, expected, javaThrew, actual, threw);
            if (last.failed()) {
                return last;
            }
            if (threw != null) {
                String diff = Nest.firstDifference(before, actual, nest.params());
                if (diff != null) {
                    return Outcome.failed("multicore (" + pool.threads() + " threads) threw and still wrote " + diff);
                }
            }
        }
        return last;
    }
}
