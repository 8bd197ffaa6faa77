package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.Ptxas;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link AffineKernels} in the kernel interpreter against plain Java, every element bit for bit; each has a
 * variant without bounds checks whose every access the host proves, and that variant's PTX addresses the proven
 * accesses from their linear forms (a stencil's taps as constant offsets of one base) and assembles with
 * {@code ptxas -arch=sm_90} where ptxas is on the PATH.
 */
class AffineInterpreterTest {
    static List<AffineKernels.Case> cases() {
        return AffineKernels.cases();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theInterpreterGivesPlainJavasBits(AffineKernels.Case c) throws Exception {
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        Object[] args = c.copy();
        KernelInterpreter.run(CatalogInterpreterTest.compile(c.method()), args, 3);
        AffineKernels.assertSameBits(plain, args, c.toString());
    }

    @Test
    void everyAccessIsProvenAndAddressedFromItsLinearForm() throws Exception {
        Path ptxas = Ptxas.find();
        for (String name : List.of("cross", "taps", "reversed", "shifted", "offsetBy", "wrapped", "stepped", "bytes",
            "rows")) {
            CompiledMethod m = CatalogInterpreterTest.compile(AffineKernels.method(name));
            KernelPlan k = m.kernels().get(0);
            assertNotNull(k.unchecked(), name + " has a variant without checks");
            assertTrue(k.unchecked().sites().isEmpty(), name + ": every access proven, no error site left: "
                    + k.unchecked().sites());
            String ptx = k.unchecked().ptx();
            assertTrue(!ptx.contains("$L_oob"), name);
            if (ptxas != null) {
                assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), ptx), name);
            }
        }
        String cross = CatalogInterpreterTest.compile(AffineKernels.method("cross")).kernels().get(0).unchecked().ptx();
        // src[i*n + j - 1] and src[i*n + j + 1] from one moved base
        assertTrue(cross.contains("+-8];") && cross.contains("+8];"), cross);
        String rows = CatalogInterpreterTest.compile(AffineKernels.method("rows")).kernels().get(0).unchecked().ptx();
        assertTrue(rows.contains("+8];") && rows.contains("+-8];"), rows);
        String bytes = CatalogInterpreterTest.compile(AffineKernels.method("bytes")).kernels().get(0).unchecked().ptx();
        assertTrue(bytes.contains("+-2];") && bytes.contains("+2];"), bytes);
        assertEquals(9, AffineKernels.cases().stream().map(c -> c.method().getName()).distinct().count());
    }
}
