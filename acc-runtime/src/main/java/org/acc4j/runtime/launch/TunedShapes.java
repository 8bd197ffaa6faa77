package org.acc4j.runtime.launch;

import java.util.List;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.plan.LaunchShapes;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.tune.ShapeCache;
import org.acc4j.runtime.tune.Tuner;

/** The {@link Tuner}'s view of a kernel variant: its key, and its block shapes from {@link LaunchShapes}. */
final class TunedShapes {
    private TunedShapes() {
    }

    /** The variant's key for the tuner, compared by identity: its PTX text, one object per variant. */
    static Object key(KernelPlan plan, boolean proven) {
        return ptx(plan, proven);
    }

    /** The variant's shapes; a block larger than the loaded kernel can launch is left out. */
    static Tuner.Shapes of(OffloadedMethod m, KernelPlan plan, boolean proven, Function f) {
        LaunchShapes.Choice c = LaunchShapes.of(plan, proven);
        int most = f.maxThreadsPerBlock();
        List<int[]> blocks = c.blocks().stream().filter(b -> b == c.blocks().get(0) || b[0] * b[1] * b[2] <= most)
                .toList();
        String where = m.plan().body().sourceFile() + ":" + plan.region().loop().line();
        return new Tuner.Shapes(where, entry(plan, proven), ShapeCache.digest(ptx(plan, proven)), blocks, c.fixedWhy());
    }

    private static String entry(KernelPlan plan, boolean proven) {
        return proven && plan.unchecked() != null ? plan.unchecked().entry() : plan.entry();
    }

    private static String ptx(KernelPlan plan, boolean proven) {
        return proven && plan.unchecked() != null ? plan.unchecked().ptx() : plan.ptx();
    }
}
