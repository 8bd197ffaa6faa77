package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.acc4j.compiler.fixtures.Kernels1D;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objectweb.asm.tree.MethodNode;

/** The PTX of every fixture kernel against golden files, and through ptxas when it is on the PATH. */
class PtxGoldenTest {
    static final Path GOLDEN = Path.of("src/test/resources/golden");

    /** Fixture classes whose every {@code @Kernels} method is compiled and, where offloaded, assembled. */
    static final List<Class<?>> FIXTURES = List.of(Kernels1D.class);

    static final List<String> OFFLOADED =
            List.of("vectorAdd", "saxpy", "shifted", "intOps", "compareFloats", "downward", "withInner");

    @ParameterizedTest
    @ValueSource(strings = {"vectorAdd", "saxpy", "shifted", "intOps", "compareFloats", "downward", "withInner"})
    void matchesGolden(String method) throws Exception {
        CompiledMethod m = CompilerTest.offload(Kernels1D.class, method);
        assertFalse(m.kernels().isEmpty());
        for (KernelPlan k : m.kernels()) {
            assertTrue(k.ptx().contains(".visible .entry " + k.entry() + "("), k.entry());
            assertTrue(k.ptx().contains(".target sm_90"), k.entry());
            Golden.check(GOLDEN, k.entry() + ".ptx", k.ptx());
        }
    }

    /** The golden list above is every Kernels1D method that offloads: a new one needs a golden file. */
    @Test
    void goldenListIsComplete() {
        assertEquals(new TreeSet<>(OFFLOADED), new TreeSet<>(offloaded(Kernels1D.class)));
    }

    @Test
    void everyKernelAssemblesWithPtxas() throws Exception {
        Path ptxas = Ptxas.find();
        Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        int assembled = 0;
        for (Class<?> c : FIXTURES) {
            byte[] bytes = TestClasses.bytes(c);
            for (MethodNode mn : TestClasses.node(c).methods) {
                if (!isKernels(mn)) {
                    continue;
                }
                if (Compiler.compile(bytes, mn.name, mn.desc, 90) instanceof Compiler.Offload o) {
                    for (KernelPlan k : o.method().kernels()) {
                        assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry()
                                + ":\n" + k.ptx());
                        assembled++;
                    }
                }
            }
        }
        assertTrue(assembled >= OFFLOADED.size(), "assembled " + assembled + " kernels");
    }

    static boolean isKernels(MethodNode mn) {
        return mn.visibleAnnotations != null
                && mn.visibleAnnotations.stream().anyMatch(a -> a.desc.equals("Lorg/acc4j/Kernels;"));
    }

    static List<String> offloaded(Class<?> c) {
        byte[] bytes = TestClasses.bytes(c);
        List<String> out = new ArrayList<>();
        for (MethodNode mn : TestClasses.node(c).methods) {
            if (isKernels(mn) && Compiler.compile(bytes, mn.name, mn.desc, 90) instanceof Compiler.Offload) {
                out.add(mn.name);
            }
        }
        return out;
    }
}
