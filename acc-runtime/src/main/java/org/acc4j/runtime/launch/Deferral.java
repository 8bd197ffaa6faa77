package org.acc4j.runtime.launch;

import org.acc4j.compiler.plan.LaunchPlan;

/**
 * Whether a synchronous launch may be deferred: the call returns once the kernel is queued, and the host waits for it
 * only when something needs the device's data ({@link org.acc4j.runtime.cuda.Pending}). Decided per launch, and
 * conservatively: a launch is waited for when
 * <ul>
 *   <li>deferring is switched off ({@code acc4j.defer}), or the time profile is on (it reads each launch's events
 *       after it);</li>
 *   <li>its variant can raise a Java exception on the device ({@link LaunchPlan#raises}: a bounds check the host
 *       did not prove, an integer division), whose error record the call must read before it returns;</li>
 *   <li>it has reductions or a scan, whose results the host reads after it, or it is launched colour by colour;</li>
 *   <li>its call is an async call (it has a queue of its own), or an array of the call was not present before it
 *       (the call's exit would copy it back or free it; a {@code T[][]} entered by this call with a window of rows
 *       it writes counts as not present);</li>
 *   <li>the tuner times it (its events are read after it).</li>
 * </ul>
 * The reasons are constants, compared by identity: deciding allocates nothing.
 */
final class Deferral {
    static final String OFF = "deferred launches are switched off (acc4j.defer)";
    static final String PROFILED = "the time profile reads each launch's events after it";
    static final String RAISES = "it can raise a Java exception on the device (a bounds check stays in it, or an"
            + " integer division), whose error record the call reads after it";
    static final String REDUCES = "the host reads its reductions' results after it";
    static final String SCANS = "the host reads its scan after it";
    static final String COLOURED = "it is launched colour by colour";
    static final String ASYNC = "an async call queues it on its own queue";
    static final String NOT_PRESENT = "an array of the call was not present before it, so the call's exit copies or"
            + " frees it";
    static final String TIMED = "the tuner times it";

    private Deferral() {
    }

    /**
     * The report's lines on deferral: once per kernel, at its first deferred launch or its first launch that a fact of
     * the kernel or a switch keeps waited for; once more when a call's data was not present. A launch the tuner times
     * says nothing: later ones may be deferred. Not thread-safe: the launcher serialises its launches.
     */
    static final class Report {
        private final java.util.function.Consumer<String> lines;
        private final java.util.Set<String> said = new java.util.HashSet<>();
        private final java.util.Set<String> absent = new java.util.HashSet<>();

        Report(java.util.function.Consumer<String> lines) {
            this.lines = lines;
        }

        /** A launch of {@code plan} (of a method in {@code source}) that is deferred when {@code why} is null. */
        void say(String source, LaunchPlan plan, String why) {
            if (why == TIMED) {
                return;
            }
            String entry = plan.entry(false);
            if (why == NOT_PRESENT) {
                if (!said.contains(entry) && absent.add(entry)) {
                    lines.accept(source + ":" + plan.line() + ": kernel " + entry + ": this launch is waited for: "
                            + why);
                }
            } else if (said.add(entry)) {
                lines.accept(source + ":" + plan.line() + ": kernel " + entry + (why == null ? ": launches deferred:"
                        + " the call returns once the kernel is queued, and the next operation that needs the device's"
                        + " data waits for it" : ": launches waited for: " + why));
            }
        }
    }

    /**
     * Why the launch of {@code plan}'s variant ({@code proven}: the one without the checks the host proved) must be
     * waited for, or null when it may be deferred.
     *
     * @param on       whether deferring is switched on
     * @param profiled whether the time profile is on
     * @param callWhy  why the call keeps it waited for ({@link #NOT_PRESENT}, {@link #ASYNC},
     *                 {@link #COLOURED}), or null
     * @param timed    whether the tuner times this launch
     */
    static String why(boolean on, boolean profiled, LaunchPlan plan, boolean proven, String callWhy, boolean timed) {
        if (!on) {
            return OFF;
        }
        if (profiled) {
            return PROFILED;
        }
        if (callWhy == ASYNC || callWhy == COLOURED) {
            return callWhy;
        }
        if (plan.raises(proven)) {
            return RAISES;
        }
        if (plan.reductions() > 0) {
            return REDUCES;
        }
        if (plan.scan()) {
            return SCANS;
        }
        if (callWhy != null) {
            return callWhy;
        }
        return timed ? TIMED : null;
    }
}
