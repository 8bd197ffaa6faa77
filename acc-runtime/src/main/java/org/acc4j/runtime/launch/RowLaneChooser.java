package org.acc4j.runtime.launch;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Consumer;
import org.acc4j.compiler.plan.LaneChoice;
import org.acc4j.compiler.plan.LaunchPlan;

/**
 * Chooses the lanes per row of each launch of a row-group kernel ({@link LaunchPlan#lanes}) from the host's row offsets. The monotonic
 * check reads every offset once per array (held weakly, by identity) and range of rows; later launches read two
 * offsets for the mean. A verdict kept for an array the program changes since only affects speed: the kernel gives
 * each row exactly Java's iterations for any offsets and any group size. Says each choice once when the report is on.
 */
final class RowLaneChooser {
    private record Range(long first, long count) {
    }

    private final Map<int[], Map<Range, Boolean>> monotonic = new WeakHashMap<>();
    private final Set<String> said = new HashSet<>();
    private final Consumer<String> report;

    RowLaneChooser(Consumer<String> report) {
        this.report = report;
    }

    /** The choice for rows {@code [first, first + count)} of row-group kernel {@code plan}, launched as {@code entry}. */
    LaneChoice choose(String where, String entry, LaunchPlan plan, int[] offsets, long first, long count) {
        boolean ok = offsets == null || monotonic.computeIfAbsent(offsets, k -> new java.util.HashMap<>())
                .computeIfAbsent(new Range(first, count), r -> LaunchPlan.monotonic(offsets, first, count));
        LaneChoice c = plan.lanes(offsets, first, count, ok);
        if (report != null && said.add(entry + " " + c.lanes() + " " + ok)) {
            report.accept(where + ": kernel " + entry + ": " + c.why());
        }
        return c;
    }
}
