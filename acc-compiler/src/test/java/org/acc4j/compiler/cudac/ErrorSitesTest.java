package org.acc4j.compiler.cudac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.TestClasses;
import org.acc4j.compiler.fixtures.BoundsKernels;
import org.acc4j.compiler.fixtures.Kernels1D;
import org.acc4j.compiler.fixtures.NarrowKernels;
import org.acc4j.compiler.fixtures.Nests;
import org.acc4j.compiler.fixtures.StridedLoops;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The CUDA C rendering numbers its error sites as the PTX kernel does: the same sites (kind, array, line) in the same
 * order, so an error code the kernel records names the same check in both.
 */
class ErrorSitesTest {
    @Test
    void renderingSitesAreTheKernelsSites() {
        int kernels = 0;
        for (Class<?> c : List.of(Kernels1D.class, Nests.class, BoundsKernels.class, NarrowKernels.class,
                StridedLoops.class)) {
            ClassNode cn = TestClasses.node(c);
            for (MethodNode mn : cn.methods) {
                if (mn.visibleAnnotations == null
                        || mn.visibleAnnotations.stream().noneMatch(a -> a.desc.equals("Lorg/acc4j/Kernels;"))) {
                    continue;
                }
                Compiler.Result r = Compiler.compile(cn, mn, 90, name -> null, List.of());
                if (!(r instanceof Compiler.Offload o)) {
                    continue;
                }
                CompiledMethod m = o.method();
                List<CudaCRenderer.Rendering> rendered = CudaCRenderer.render(m, null);
                for (int k = 0; k < rendered.size(); k++) {
                    KernelPlan plan = m.kernels().get(k);
                    assertEquals(plan.entry(), rendered.get(k).entry());
                    assertEquals(plan.sites(), rendered.get(k).sites(), c.getSimpleName() + "." + mn.name);
                    kernels++;
                }
            }
        }
        assertTrue(kernels > 20, "kernels compared: " + kernels);
    }
}
