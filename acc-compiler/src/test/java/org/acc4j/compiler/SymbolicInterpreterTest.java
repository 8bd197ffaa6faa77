package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.StackKernels;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.jvm.HostKernels;
import org.acc4j.compiler.jvm.TestPool;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The frontend's symbolic execution on ASM's frames, where javac copies values on the operand stack ({@code dup}
 * and its kind): each kernel of {@link StackKernels} is compiled, run on the kernel interpreter and on the host's
 * multicore path and compared with plain Java on random inputs from a fixed seed, element by element, and its PTX
 * assembled.
 */
class SymbolicInterpreterTest {
    private static final int N = 777;

    @ParameterizedTest
    @ValueSource(strings = {"postIncrementInt", "postIncrementLong", "chainedStoreDouble", "storeThroughLocal",
            "preIncrements"})
    void sameAsJava(String name) throws Exception {
        CompiledMethod m = CompilerTest.offload(StackKernels.class, name);
        BoundsTest.assertSameOutcome(m, StackKernels.class, name, inputs(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"postIncrementInt", "postIncrementLong", "chainedStoreDouble", "storeThroughLocal",
            "preIncrements"})
    void sameAsJavaOnTheHostPath(String name) throws Exception {
        HostKernels hk = HostKernels.of(CompilerTest.offload(StackKernels.class, name));
        Method k = Arrays.stream(StackKernels.class.getMethods()).filter(m -> m.getName().equals(name)).findFirst()
                .orElseThrow();
        Object[] args = inputs(name);
        Object[] plain = NestInputs.copy(args);
        k.invoke(null, plain);
        try (TestPool pool = new TestPool(3)) {
            hk.run(s -> args[((ArrayRef.Parameter) s).index()], args, pool, null);
        }
        for (int a = 0; a < args.length; a++) {
            NestInputs.assertDeepEquals(plain[a], args[a], name + " argument " + a);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postIncrementInt", "postIncrementLong", "chainedStoreDouble", "storeThroughLocal",
            "preIncrements"})
    void assembles(String name) throws Exception {
        Path ptxas = Ptxas.find();
        Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        CompiledMethod m = CompilerTest.offload(StackKernels.class, name);
        for (KernelPlan k : m.kernels()) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry() + ":\n" + k.ptx());
            if (k.unchecked() != null) {
                assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()), k.unchecked().entry());
            }
        }
    }

    private static Object[] inputs(String name) {
        Random r = new Random(0x5eedL + name.hashCode());
        return switch (name) {
            case "postIncrementInt" -> new Object[] {ints(r), new int[N], N};
            case "postIncrementLong" -> new Object[] {longs(r), new long[N], N};
            case "chainedStoreDouble" -> new Object[] {doubles(r), new double[N], new double[N], N};
            case "storeThroughLocal" -> new Object[] {ints(r), new int[N], new int[N], N};
            default -> new Object[] {longs(r), new int[N], N};
        };
    }

    private static int[] ints(Random r) {
        int[] a = new int[N];
        for (int i = 0; i < N; i++) {
            a[i] = r.nextInt();
        }
        return a;
    }

    private static long[] longs(Random r) {
        long[] a = new long[N];
        for (int i = 0; i < N; i++) {
            a[i] = r.nextLong();
        }
        return a;
    }

    private static double[] doubles(Random r) {
        double[] a = new double[N];
        for (int i = 0; i < N; i++) {
            a[i] = r.nextGaussian() * 1e3;
        }
        return a;
    }
}
