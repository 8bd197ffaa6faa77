package org.acc4j.runtime.launch;

import org.acc4j.compiler.plan.DataUse;
import org.acc4j.compiler.plan.HostCall;
import org.acc4j.compiler.plan.MethodLaunch;
import org.acc4j.runtime.data.PresentTable;

/**
 * The {@code T[][]} arrays of a synchronous call that its kernels only write, every element of a rectangle ({@link
 * MethodLaunch#window}): each is entered with that window ({@link PresentTable#enterWritten}), so that nothing is
 * copied in and only the window comes back. Before its kernel runs, the window is checked against the host's values
 * at the launch (host code before the loop may have changed them), and the block made whole when they differ; after
 * it, the window is marked written. Not thread-safe: one per call.
 */
final class WrittenWindows {
    private final PresentTable table;
    private final MethodLaunch plan;
    /** Whether any data clause of the plan has a window at all. */
    private final boolean any;

    WrittenWindows(PresentTable table, MethodLaunch plan) {
        this.table = table;
        this.plan = plan;
        boolean found = false;
        for (int d = 0; d < plan.data().size(); d++) {
            found |= plan.windowRegion(d) >= 0;
        }
        this.any = found;
    }

    /** Whether any data clause of the plan has a window: the host checks and marks it around each launch. */
    boolean any() {
        return any;
    }

    /**
     * Enters data clause {@code d}'s {@code array} with its window when it has one for this call; returns false,
     * having done nothing, otherwise.
     */
    boolean enter(int d, Object array, HostCall call) {
        MethodLaunch.Window w = window(d, array, call);
        if (w == null) {
            return false;
        }
        table.enterWritten(array, w.firstRow(), w.endRow(), w.firstColumn(), w.endColumn());
        return true;
    }

    /**
     * Has {@code scope} adopt data clause {@code d}'s {@code array} (named {@code name}) with its window when it has
     * one for this call; returns false, having done nothing, otherwise or when the scope takes no windows.
     */
    boolean adopt(Launcher.Scope scope, int d, Object array, String name, HostCall call) {
        MethodLaunch.Window w = window(d, array, call);
        return w != null && scope.adoptWritten(array, name, w.firstRow(), w.endRow(), w.firstColumn(), w.endColumn());
    }

    private MethodLaunch.Window window(int d, Object array, HostCall call) {
        return any && array instanceof Object[] ? plan.window(d, call) : null;
    }

    /** Before region {@code k} launches with the host's values in {@code call}: see the class comment. */
    void beforeLaunch(int k, HostCall call, Object[] arrays) {
        if (!any) {
            return;
        }
        for (int d = 0; d < plan.data().size(); d++) {
            if (plan.windowRegion(d) == k) {
                DataUse use = plan.data().get(d);
                MethodLaunch.Window w = plan.windowAtLaunch(d, call);
                Object array = arrays[use.array()];
                if (array == null) {
                    continue;
                }
                if (w == null) {
                    table.checkWindow(array, -1, -1, -1, -1);
                } else {
                    table.checkWindow(array, w.firstRow(), w.endRow(), w.firstColumn(), w.endColumn());
                }
            }
        }
    }

    /** After region {@code k}'s kernels ran: the windows they write are written. */
    void afterLaunch(int k, Object[] arrays) {
        if (!any) {
            return;
        }
        for (int d = 0; d < plan.data().size(); d++) {
            Object array = arrays[plan.data().get(d).array()];
            if (plan.windowRegion(d) == k && array != null) {
                table.windowWritten(array);
            }
        }
    }
}
