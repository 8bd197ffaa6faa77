package org.acc4j.runtime.launch;

import java.util.List;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.PresentTable;
import org.acc4j.runtime.data.QueuedHolds;

/**
 * The exits of a call's data clauses, in reverse order of entry, going on past failures: each failure is added to the
 * call's own failure ({@code pending}) when it has one, else the first is thrown at the end with the others added to
 * it. Plain loops: a call's exit allocates nothing.
 */
final class ClauseExits {
    private ClauseExits() {
    }

    /** Exits every entered array (copying back when {@code ok}, else discarding its device copy's changes). */
    static void all(PresentTable table, List<Object> entered, List<Clause> clauses, boolean ok, Throwable pending) {
        RuntimeException failure = null;
        for (int i = entered.size() - 1; i >= 0; i--) {
            try {
                if (ok) {
                    table.exit(entered.get(i), clauses.get(i));
                } else {
                    table.discard(entered.get(i));
                }
            } catch (RuntimeException e) {
                failure = add(failure, pending, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** {@link #all} for an async call at its wait, through {@link QueuedHolds} (see there). */
    static void queued(QueuedHolds holds, PresentTable table, List<Object> entered, List<Clause> clauses, boolean ok,
                       Throwable pending) {
        RuntimeException failure = null;
        for (int i = entered.size() - 1; i >= 0; i--) {
            try {
                if (ok) {
                    holds.exit(table, entered.get(i), clauses.get(i));
                } else {
                    holds.discard(table, entered.get(i), clauses.get(i));
                }
            } catch (RuntimeException e) {
                failure = add(failure, pending, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Keeps {@code e} with {@code pending} when there is one, else with the first failure; the failure to throw. */
    private static RuntimeException add(RuntimeException failure, Throwable pending, RuntimeException e) {
        if (pending != null) {
            pending.addSuppressed(e);
            return failure;
        }
        if (failure == null) {
            return e;
        }
        failure.addSuppressed(e);
        return failure;
    }
}
