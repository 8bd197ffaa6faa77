package org.acc4j.compiler;

import java.util.List;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;

/**
 * The host's side of an offloaded call: the method's top-level statements in order, on an evaluator holding the
 * call's parameters. Scalar statements run on the host (those it cannot evaluate, reading array elements, are
 * left to the threads that re-run them, see {@link org.acc4j.compiler.pass.RegionSplitter}); each loop is a
 * launch of its region, after which each reduction's variable becomes {@code before op result}; a final
 * {@code return} gives the call's value. The runtime and the kernel interpreter both drive calls through here.
 */
public final class HostProgram {
    /** Launches one region. */
    public interface Launch {
        /**
         * Runs region {@code k} with the host's values at its loop in {@code ev}, and returns the raw bits of its
         * reductions' results, one per {@link Region#reductions()}, in order.
         */
        long[] region(int k, Evaluator ev);
    }

    private HostProgram() {
    }

    /**
     * Runs the call; returns the method's value (boxed), or null for a void method; for a method with {@link
     * CompiledMethod#outputs() outputs}, an {@code Object[]} of their final values (boxed) instead.
     */
    public static Object run(CompiledMethod m, Evaluator ev, Launch launch) {
        int k = 0;
        for (Stmt s : m.body().body()) {
            if (s instanceof Stmt.For) {
                Region r = m.kernels().get(k).region();
                long[] bits = launch.region(k, ev);
                for (int j = 0; j < r.reductions().size(); j++) {
                    Reduction red = r.reductions().get(j);
                    Object before = ev.get(red.var());
                    if (before == null) {
                        throw new IllegalStateException("the value of " + red.var().name() + " before the loop at line "
                                + r.loop().line() + " is not known on the host");
                    }
                    ev.set(red.var(), red.combine(before, red.fromBits(bits[j])));
                }
                k++;
            } else if (s instanceof Stmt.Return ret) {
                if (!m.outputs().isEmpty()) {
                    return outputs(m, ev);
                }
                return ret.value() == null ? null : ev.eval(ret.value());
            } else {
                try {
                    ev.run(List.of(s));
                } catch (Evaluator.NotEvaluable e) {
                    // a value only the threads compute (it reads array elements); nothing the host needs
                }
            }
        }
        return m.outputs().isEmpty() ? null : outputs(m, ev);
    }

    private static Object[] outputs(CompiledMethod m, Evaluator ev) {
        Object[] out = new Object[m.outputs().size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ev.get(m.outputs().get(i));
        }
        return out;
    }
}
