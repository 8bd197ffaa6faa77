package org.acc4j.runtime.launch;

import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.plan.AsyncClause;
import org.acc4j.compiler.plan.LaunchPlan;
import org.acc4j.compiler.plan.MethodLaunch;
import org.acc4j.runtime.cuda.Function;

/**
 * A {@code @Kernels} method ready to launch: its plan, its kernels and how to read its sources. Each kernel may have a
 * variant without the bounds checks the host proves ({@link LaunchPlan#hasUnchecked()}); each variant is loaded on its
 * first launch, so a method whose proofs always hold never loads its checked kernels, and the other way round.
 * Loading happens under the device lock (the {@link Launcher} runs under the {@link Guard}). It also knows the async
 * queue its calls go on ({@link AsyncClause}).
 */
final class OffloadedMethod {
    /** Loads one kernel variant into the device's context. */
    @FunctionalInterface
    interface Loader {
        Function load(LaunchPlan kernel, boolean unchecked);
    }

    private final String displayName;
    private final MethodLaunch plan;
    private final Sources sources;
    private final Loader loader;
    private final Function[] checked;
    /** The variants without proven checks; a kernel without one stays null for good. */
    private final Function[] unchecked;
    private final boolean[] hasUnchecked;
    private final AsyncClause async;
    private final Object[] bound;
    private WrittenWindows windows;

    /**
     * A method whose variants are loaded on first need by {@code loader}.
     *
     * @param hoist whether kernels with proven checks launch their variant without them when the proofs hold
     */
    OffloadedMethod(String displayName, CompiledMethod plan, Loader loader, boolean hoist, Sources sources,
                    AsyncClause async) {
        this.displayName = displayName;
        this.async = async;
        this.plan = MethodLaunch.of(plan);
        this.sources = sources;
        this.loader = loader;
        int n = plan.kernels().size();
        this.bound = new Object[this.plan.arrays().size()];
        this.checked = new Function[n];
        this.unchecked = new Function[n];
        this.hasUnchecked = new boolean[n];
        for (int k = 0; k < n; k++) {
            hasUnchecked[k] = hoist && this.plan.kernel(k).hasUnchecked();
        }
    }

    /**
     * A method whose kernels are loaded already, and whose calls are synchronous; {@code unchecked} holds null where a
     * kernel has no such variant.
     */
    OffloadedMethod(String displayName, CompiledMethod plan, List<Function> functions, List<Function> unchecked,
                    Sources sources) {
        this(displayName, plan, (k, u) -> {
            throw new IllegalStateException("kernel " + k.entry(u) + " was not loaded");
        }, true, sources, AsyncClause.SYNC);
        for (int k = 0; k < checked.length; k++) {
            checked[k] = k < functions.size() ? functions.get(k) : null;
            this.unchecked[k] = k < unchecked.size() ? unchecked.get(k) : null;
            hasUnchecked[k] = this.unchecked[k] != null;
        }
    }

    String displayName() {
        return displayName;
    }

    /** Its launch plan: arrays, data clauses, kernels and the host program. */
    MethodLaunch plan() {
        return plan;
    }

    Sources sources() {
        return sources;
    }

    /** The queue its calls go on ({@link AsyncClause#SYNC} for none). */
    AsyncClause async() {
        return async;
    }

    LaunchPlan kernel(int i) {
        return plan.kernel(i);
    }

    /** Whether kernel {@code k} has a variant without the checks the host proves, to launch when they hold. */
    boolean hasUnchecked(int k) {
        return hasUnchecked[k];
    }

    /** Kernel {@code k}'s variant, loaded now if this is its first launch; call under the device lock. */
    synchronized Function function(int k, boolean withoutChecks) {
        Function[] variants = withoutChecks ? unchecked : checked;
        if (variants[k] == null) {
            if (withoutChecks && !hasUnchecked[k]) {
                throw new IllegalStateException("kernel " + kernel(k).entry(false) + " has no variant without checks");
            }
            variants[k] = loader.load(kernel(k), withoutChecks);
        }
        return variants[k];
    }

    /** Whether a kernel it loaded went with a context since destroyed (after a fault): it must be prepared again. */
    synchronized boolean stale() {
        return stale(checked) || stale(unchecked);
    }

    private static boolean stale(Function[] variants) {
        for (Function f : variants) {
            if (f != null && f.module().isClosed()) {
                return true;
            }
        }
        return false;
    }

    /** The buffer a synchronous call binds its arrays into (by {@code ArrayUse.index()}), cleared after each call. */
    Object[] boundArrays() {
        return bound;
    }

    /** The written windows of its calls ({@link WrittenWindows}), made by the launcher at the first call; or null. */
    WrittenWindows windows() {
        return windows;
    }

    void windows(WrittenWindows w) {
        windows = w;
    }
}
