package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.acc4j.compiler.fixtures.Kernels1D;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/** The pipeline: its phases run in their order, every phase's output is kept, and the result is the compiler's. */
class PipelineTest {
    private static Pipeline run(String method) {
        ClassNode cn = TestClasses.node(Kernels1D.class);
        MethodNode mn = TestClasses.method(cn, method);
        return Pipeline.run(cn, mn, 90, name -> null, List.of());
    }

    @Test
    void everyPhaseRunsAndKeepsItsOutput() {
        Pipeline p = run("shifted");
        assertEquals(Pipeline.Phase.DATA, p.last());
        for (Pipeline.Phase phase : Pipeline.Phase.values()) {
            assertNotNull(p.snapshot(phase), "the output of " + phase);
        }
        String mapped = p.snapshot(Pipeline.Phase.MAPPING);
        assertTrue(mapped.startsWith("region 0: "), mapped);
        assertTrue(mapped.contains("for "), mapped);
        String split = p.snapshot(Pipeline.Phase.SPLIT);
        assertTrue(split.startsWith("region 0\n"), "no mapping before the parallelism decision: " + split);
        assertTrue(p.snapshot(Pipeline.Phase.EMIT).contains(".entry acc_Kernels1D_shifted_r0"));
        assertTrue(p.snapshot(Pipeline.Phase.DATA).contains("copyin"), p.snapshot(Pipeline.Phase.DATA));
    }

    @Test
    void phasesRunOnlyInOrder() {
        Pipeline p = run("vectorAdd");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.advance(Pipeline.Phase.READ));
        assertTrue(e.getMessage().contains("READ runs after DATA"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> p.advance(Pipeline.Phase.ROW_GROUP));
    }

    @Test
    void theCompilerGivesThePipelinesResult() {
        Pipeline p = run("saxpy");
        Compiler.Result r = Compiler.compile(TestClasses.bytes(Kernels1D.class), "saxpy", "(F[F[FI)V", 90);
        CompiledMethod m = ((Compiler.Offload) r).method();
        CompiledMethod fromPipeline = p.compiled();
        assertEquals(fromPipeline.report(), m.report());
        assertEquals(fromPipeline.data(), m.data());
        assertEquals(fromPipeline.kernels().size(), m.kernels().size());
        for (int i = 0; i < m.kernels().size(); i++) {
            assertEquals(fromPipeline.kernels().get(i).ptx(), m.kernels().get(i).ptx());
        }
        assertTrue(m.report().stream().anyMatch(l -> l.contains("kernel acc_Kernels1D_saxpy_r0")), m.report().toString());
        assertNull(p.directives().dataError());
    }
}
