package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.Nests;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.Mapping;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Loop nests: the mapping chosen for each, its PTX through ptxas and against a golden file, and the mapped
 * kernel run by the interpreter (every block and thread, with race detection) against plain Java, on seeded
 * random inputs at sizes that are not multiples of the blocks, with grids small enough that threads stride.
 */
class NestsTest {
    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
            "jacobiAuto, Map2_3, '64,1,1'",
            "jacobiMap21, Map2_1, '32,1,1'",
            "jacobiMap22, Map2_2, '16,2,1'",
            "jacobiMap23, Map2_3, '16,1,1'",
            "jacobiMap24, Map2_4, '16,2,1'",
            "jacobi2D, Map2_4, '128,2,1'",
            "dgemm, Map2_4, '128,2,1'",
            "dgemm2D, Map2_4, '16,2,1'",
            "stencilAuto, mapping gang vector gang vector gang, '128,2,1'",
            "stencilMap31, Map3_1, '16,2,1'",
            "stencilMap32, Map3_2, '8,4,2'",
            "stencilMap33, Map3_3, '16,2,1'",
            "collapsed, Map1, '32,1,1'",
            "transpose, Map2_4, '128,2,1'",
            "mathAndSelect, Map1, '128,1,1'",
            "transcendental, Map1, '128,1,1'",
    })
    void mappingAndResult(String name, String mapping, String block) throws Exception {
        CompiledMethod m = CompilerTest.offload(Nests.class, name);
        Mapping map = m.kernels().get(0).mapping();
        if (!name.equals("jacobiAuto")) {
            assertEquals(mapping, map.name(), map::toString);
            int[] b = java.util.Arrays.stream(block.split(",")).mapToInt(Integer::parseInt).toArray();
            assertArrayEquals(b, map.block(), map::toString);
        }
        for (KernelPlan k : m.kernels()) {
            Golden.check(PtxGoldenTest.GOLDEN, k.entry() + ".ptx", k.ptx());
        }
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            for (KernelPlan k : m.kernels()) {
                assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry());
            }
        }
        for (int maxBlocks : new int[] {2, 1000}) {
            for (long seed = 1; seed <= 2; seed++) {
                Object[] device = NestInputs.args(name, seed, 1);
                Object[] plain = NestInputs.copy(device);
                Method method = NestInputs.reference(name);
                method.invoke(null, plain);
                KernelInterpreter.run(m, device, maxBlocks);
                for (int k = 0; k < device.length; k++) {
                    NestInputs.assertDeepEquals(plain[k], device[k], name + " argument " + k + " (seed " + seed + ", "
                            + maxBlocks + " blocks per axis at most)");
                }
            }
        }
    }

    @Test
    void jacobiWithoutHintsIsCoalescedOnTheInnerLoop() {
        CompiledMethod m = CompilerTest.offload(Nests.class, "jacobiAuto");
        Mapping map = m.kernels().get(0).mapping();
        // j is stride-1: block x and grid x; i: block y and grid y
        assertEquals(0, map.levels().get(1).blockAxis());
        assertEquals(0, map.levels().get(1).gridAxis());
        assertEquals(1, map.levels().get(0).gridAxis());
        assertEquals(1, map.levels().get(0).blockAxis());
        assertEquals("Map2_4", map.name());
        assertEquals(1, m.kernels().get(0).region().checks().size(), "a[i*n+j] is checked disjoint at launch");
        assertTrue(String.join("\n", m.report()).contains("checked before each launch: the writes to a"), m.report()::toString);
    }

    @Test
    void stencilWithoutHintsPutsTheStrideOneOuterLoopOnThreadX() {
        Mapping map = CompilerTest.offload(Nests.class, "stencilAuto").kernels().get(0).mapping();
        assertEquals(0, map.levels().get(0).blockAxis(), map::toString);
    }

    @Test
    void dgemmKeepsItsInnerAccumulationSequential() {
        CompiledMethod m = CompilerTest.offload(Nests.class, "dgemm");
        assertEquals(2, m.kernels().get(0).mapping().levels().size());
        assertTrue(m.report().stream().anyMatch(l -> l.contains("loop over k: sequential in each thread")), m.report()::toString);
    }

    @Test
    void aLoopThatRewritesTheSameElementsStaysOnTheHostWithAReason() {
        Diagnostic d = CompilerTest.host(Nests.class, "innerOnly");
        assertTrue(d.toString().contains("every iteration writes the same elements of a"), d::toString);
    }

    @Test
    void disjointnessIsCheckedWithTheCallsValues() throws Exception {
        CompiledMethod m = CompilerTest.offload(Nests.class, "strided");
        assertEquals(1, m.kernels().get(0).region().checks().size());
        // width >= cols: rows do not overlap, the kernel runs and matches plain Java
        double[] device = new double[7 * 12];
        double[] plain = device.clone();
        Nests.strided(plain, 7, 11, 12);
        KernelInterpreter.run(m, new Object[] {device, 7, 11, 12}, 3);
        assertArrayEquals(plain, device);
        // width < cols: rows overlap, so the launch is refused (the runtime runs the call on the host)
        KernelInterpreter.HostInstead h = org.junit.jupiter.api.Assertions.assertThrows(KernelInterpreter.HostInstead.class,
                () -> KernelInterpreter.run(m, new Object[] {new double[7 * 12], 7, 11, 10}, 3));
        assertTrue(h.getMessage().contains("may repeat"), h::getMessage);
    }

}
