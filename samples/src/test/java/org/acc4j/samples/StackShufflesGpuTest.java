package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The kernels of {@link StackShuffles} (values javac copies on the operand stack with {@code dup} and its kind) on
 * the GPU against plain Java, every element of every array, on random inputs from a fixed seed. Skips, saying why,
 * where there is no device.
 */
@Tag("gpu")
class StackShufflesGpuTest {
    private static final int N = 100_003;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"postIncrementInt", "postIncrementLong", "chainedStoreDouble", "storeThroughLocal",
            "preIncrements"})
    void sameAsJavaOnTheGpu(String name) throws Exception {
        Method k = Arrays.stream(StackShuffles.class.getMethods()).filter(m -> m.getName().equals(name)).findFirst()
                .orElseThrow();
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        Object[] plain = inputs(name);
        Object[] device = copy(plain);
        k.invoke(null, plain);
        assertNotNull(AccRuntime.offloadValue(StackShuffles.class, name, desc, null, device),
                name + " did not run on the device");
        for (int a = 0; a < plain.length; a++) {
            String what = name + " argument " + a;
            if (plain[a] instanceof int[] x) {
                assertArrayEquals(x, (int[]) device[a], what);
            } else if (plain[a] instanceof long[] x) {
                assertArrayEquals(x, (long[]) device[a], what);
            } else if (plain[a] instanceof double[] x) {
                assertArrayEquals(x, (double[]) device[a], what);
            }
        }
    }

    private static Object[] inputs(String name) {
        Random r = new Random(0x5eedL + name.hashCode());
        return switch (name) {
            case "postIncrementInt" -> new Object[] {r.ints(N).toArray(), new int[N], N};
            case "postIncrementLong" -> new Object[] {r.longs(N).toArray(), new long[N], N};
            case "chainedStoreDouble" -> new Object[] {r.doubles(N).map(x -> x * 1e3 - 5e2).toArray(), new double[N],
                new double[N], N};
            case "storeThroughLocal" -> new Object[] {r.ints(N).toArray(), new int[N], new int[N], N};
            default -> new Object[] {r.longs(N).toArray(), new int[N], N};
        };
    }

    private static Object[] copy(Object[] args) {
        Object[] c = new Object[args.length];
        for (int k = 0; k < args.length; k++) {
            c[k] = args[k] instanceof int[] x ? x.clone() : args[k] instanceof long[] x ? x.clone()
                    : args[k] instanceof double[] x ? x.clone() : args[k];
        }
        return c;
    }
}
