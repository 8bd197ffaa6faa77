package org.acc4j.runtime.launch;

import java.util.List;
import org.acc4j.compiler.plan.LaunchPlan;
import org.acc4j.compiler.plan.LaunchShapes;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.tune.ShapeCache;
import org.acc4j.runtime.tune.Tuner;

/** The {@link Tuner}'s view of a kernel variant: its key, and its block shapes from {@link LaunchShapes}. */
final class TunedShapes {
    private TunedShapes() {
    }

    /** The variant's key for the tuner, compared by identity: its PTX text, one object per variant. */
    static Object key(LaunchPlan plan, boolean proven) {
        return plan.ptx(proven);
    }

    /** The variant's shapes; a block larger than the loaded kernel can launch is left out. */
    static Tuner.Shapes of(OffloadedMethod m, LaunchPlan plan, boolean proven, Function f) {
        LaunchShapes.Choice c = plan.shapes(proven);
        int most = f.maxThreadsPerBlock();
        List<int[]> blocks = new java.util.ArrayList<>();
        for (int i = 0; i < c.blocks().size(); i++) {
            int[] b = c.blocks().get(i);
            if (i == 0 || b[0] * b[1] * b[2] <= most) {
                blocks.add(b);
            }
        }
        String where = m.plan().sourceFile() + ":" + plan.line();
        return new Tuner.Shapes(where, plan.entry(proven), ShapeCache.digest(plan.ptx(proven)), blocks, c.fixedWhy());
    }
}
