package org.acc4j.runtime.tune;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Times a kernel's block shapes on its first real calls and keeps the fastest for the calls after them.
 *
 * <p>Each kernel variant is tuned per size class ({@link #sizeClass}: the bit length of each parallel level's trip
 * count), starting from its mapping's own block:
 * <ol>
 * <li><b>Watching.</b> Launches run with the own block and are timed. Once the median reaches
 * {@link Rules#minLaunchNanos}, tuning starts; after {@link Rules#watched} launches below it, the kernel keeps its
 * block, untimed: a short kernel's time is mostly its launch's. Once such a kernel has been launched
 * {@link Rules#frequent} times at that size class, it is tuned after all if its median is at least
 * {@link Rules#frequentNanos}: called that often, its time matters too.</li>
 * <li><b>Tuning.</b> Each launch takes the live candidate with the fewest timed launches (the own block first on a
 * tie), so the candidates take turns and share any drift of the device's clocks. Every call's output is that
 * launch's: every candidate computes the same elements with the same per-thread code
 * ({@code org.acc4j.compiler.plan.LaunchShapes} offers only such shapes), so no call runs twice. A candidate whose
 * median exceeds the own block's by {@link Rules#dropRatio} is not launched again, nor is one whose launch failed
 * twice (its launch never reported a time).</li>
 * <li><b>Chosen.</b> When every live candidate has {@link Rules#runs} times, or when the candidates have cost
 * {@link Rules#budget} of the own block's launch times more than the own block would have, the candidate with the
 * least median among those timed as often as the own block wins if it is at least {@link Rules#margin} faster than
 * the own block; otherwise the own block stays. The choice goes to the {@link ShapeCache} and is used, untimed,
 * for every later launch of that size class; a later run finds it there and times nothing.</li>
 * </ol>
 * The report says what was tried, each candidate's median and what was chosen, or why a kernel is not tuned; the
 * profile gets each tuning's launches, device time and the time above the own block's. Only synchronous launches
 * are timed (the launcher asks only for them). Thread-safe.
 */
public final class Tuner implements AutoCloseable {
    /** Times one launch: {@link #start} before it, {@link #stop} after it, {@link #nanos} once both completed. */
    public interface Timing extends AutoCloseable {
        void start();

        void stop();

        /** Device time from the last start to the last stop; called after a synchronisation that followed both. */
        long nanos();

        @Override
        void close();

        /** Forgets the clock's device handles without releasing them: the device is lost. */
        default void abandon() {
        }
    }

    /** Takes a finished tuning, for the profile. */
    public interface Listener {
        /**
         * @param launches the launches timed while tuning (watching included)
         * @param nanos    their device time
         * @param extra    how much longer they took than the own block's median would have
         * @param outcome  the chosen block and why, for people
         */
        void tuned(String kernel, String sizeClass, long launches, long nanos, long extra, String outcome);
    }

    /**
     * A kernel variant's shapes.
     *
     * @param where    {@code File.java:line}, for the report
     * @param entry    the kernel's entry name
     * @param kernel   a digest of its PTX (the cache's key)
     * @param blocks   the shapes, its mapping's own first
     * @param fixedWhy why it keeps its own block, or null
     */
    public record Shapes(String where, String entry, String kernel, List<int[]> blocks, String fixedWhy) {
        public Shapes {
            blocks = blocks.stream().map(int[]::clone).toList();
        }
    }

    /** One launch's shape; {@link #block()} is the block to launch with. */
    public static final class Launch {
        private final State state;
        private final int candidate;
        private final boolean timed;

        private Launch(State state, int candidate, boolean timed) {
            this.state = state;
            this.candidate = candidate;
            this.timed = timed;
        }

        public int[] block() {
            return state.site.shapes.blocks().get(candidate).clone();
        }

        /** Whether the launch is the mapping's own block: its grid needs no change. */
        public boolean own() {
            return candidate == 0;
        }

        /** Whether the launch is timed. */
        public boolean timed() {
            return timed;
        }
    }

    private enum Stage { WATCHING, TUNING, CHOSEN }

    /** A kernel variant and its size classes. */
    private static final class Site {
        final Shapes shapes;
        final Map<String, State> classes = new HashMap<>();
        /** The trip counts of the last launch and their class's state: most launches repeat them. */
        long[] lastTrips;
        State last;

        Site(Shapes shapes) {
            this.shapes = shapes;
        }
    }

    /** One size class of a site. */
    private static final class State {
        final Site site;
        final String sizeClass;
        final String trips;
        Stage stage = Stage.WATCHING;
        final List<List<Long>> samples = new ArrayList<>();
        final boolean[] dropped;
        final int[] misses;
        int chosen;
        /** The launch of the chosen block, made once. */
        Launch fixed;
        /** Kept for being short: its launches are counted, for {@link Rules#frequent}. */
        boolean keptShort;
        long shortLaunches;
        /** The candidate launched last and not yet timed, or -1. */
        int pending = -1;
        long launches;
        long nanos;
        long extra;

        State(Site site, String sizeClass, String trips) {
            this.site = site;
            this.sizeClass = sizeClass;
            this.trips = trips;
            int n = site.shapes.blocks().size();
            for (int i = 0; i < n; i++) {
                samples.add(new ArrayList<>());
            }
            dropped = new boolean[n];
            misses = new int[n];
        }
    }

    private final Rules rules;
    private final ShapeCache cache;
    private final Timing timing;
    private final Consumer<String> report;
    private final Listener listener;
    /** By the key the launcher gives, compared by identity. */
    private final Map<Object, Site> sites = new java.util.IdentityHashMap<>();

    /**
     * @param cache    where chosen shapes are kept across runs, or null for none
     * @param timing   the device's clock around a launch
     * @param report   takes the report's lines, or null when the report is off
     * @param listener takes each finished tuning (the profile), or null
     */
    public Tuner(Rules rules, ShapeCache cache, Timing timing, Consumer<String> report, Listener listener) {
        this.rules = rules;
        this.cache = cache;
        this.timing = timing;
        this.report = report;
        this.listener = listener;
    }

    /**
     * The shape of a launch of the kernel variant {@code key} (one object per variant, compared by identity, such as its
     * PTX text) whose parallel levels run {@code trips} iterations; {@code shapes} is asked on the variant's first
     * launch only. Null: the own block, untimed.
     */
    public synchronized Launch pick(Object key, Supplier<Shapes> shapes, long[] trips) {
        return pick(key, shapes, trips, true);
    }

    /** Whether the kernel variant {@code key} was picked for before (its shapes are known). */
    public synchronized boolean knows(Object key) {
        return sites.containsKey(key);
    }

    /**
     * As {@link #pick}, for a launch that cannot be timed (an async call's): the chosen block once there is one, else
     * null (the own block); the launch counts for nothing.
     */
    public synchronized Launch chosen(Object key, Supplier<Shapes> shapes, long[] trips) {
        return pick(key, shapes, trips, false);
    }

    private Launch pick(Object key, Supplier<Shapes> shapes, long[] trips, boolean timing) {
        Site site = sites.get(key);
        if (site == null) {
            site = new Site(shapes.get());
            sites.put(key, site);
            if (site.shapes.fixedWhy() != null) {
                say(site.shapes.where() + ": kernel " + site.shapes.entry() + ": block " + dims(site.shapes.blocks().get(0))
                        + " not tuned: " + site.shapes.fixedWhy());
            }
        }
        if (site.shapes.fixedWhy() != null || site.shapes.blocks().size() < 2) {
            return null;
        }
        State s = site.last != null && Arrays.equals(site.lastTrips, trips) ? site.last : state(site, trips);
        if (!timing) {
            return s.stage == Stage.CHOSEN ? new Launch(s, s.chosen, false) : null;
        }
        if (s.pending >= 0 && ++s.misses[s.pending] >= 2) {
            // its launches failed or raised an exception before they were timed
            s.dropped[s.pending] = s.pending != 0;
        }
        s.pending = -1;
        switch (s.stage) {
            case CHOSEN:
                if (s.keptShort && ++s.shortLaunches >= rules.frequent()) {
                    s.keptShort = false;
                    if (median(s.samples.get(0)) >= rules.frequentNanos()) {
                        s.stage = Stage.TUNING;
                        say(s.site.shapes.where() + ": kernel " + s.site.shapes.entry() + " [" + s.sizeClass
                                + "]: timing " + (s.site.shapes.blocks().size() - 1) + " other block shapes on the next"
                                + " calls (launched " + s.shortLaunches + " times, block "
                                + dims(s.site.shapes.blocks().get(0)) + " takes " + us(median(s.samples.get(0))) + ")");
                        int next = next(s);
                        s.pending = next;
                        return new Launch(s, next, true);
                    }
                }
                if (s.fixed == null) {
                    s.fixed = new Launch(s, s.chosen, false);
                }
                return s.fixed;
            case WATCHING:
                s.pending = 0;
                return new Launch(s, 0, true);
            default:
                int next = next(s);
                s.pending = next;
                return new Launch(s, next, true);
        }
    }

    /** The state of {@code trips}' size class, made (and looked up in the cache) on its first launch. */
    private State state(Site site, long[] trips) {
        String cls = sizeClass(trips);
        State s = site.classes.get(cls);
        if (s == null) {
            s = new State(site, cls, tripsText(trips));
            site.classes.put(cls, s);
            int[] kept = cache == null ? null : cache.read(site.shapes.kernel(), cls, site.shapes.blocks());
            if (kept != null) {
                s.stage = Stage.CHOSEN;
                s.chosen = indexOf(site.shapes.blocks(), kept);
                say(site.shapes.where() + ": kernel " + site.shapes.entry() + " [" + cls + "]: block " + dims(kept)
                        + ", tuned in an earlier run (" + cache.file(site.shapes.kernel(), cls) + ")");
            }
        }
        site.lastTrips = trips.clone();
        site.last = s;
        return s;
    }

    /** The live candidate with the fewest times, the lowest index on a tie. */
    private static int next(State s) {
        int best = 0;
        for (int i = 1; i < s.samples.size(); i++) {
            if (!s.dropped[i] && s.samples.get(i).size() < s.samples.get(best).size()) {
                best = i;
            }
        }
        return best;
    }

    /** Just before a launch: starts the clock when the launch is timed. */
    public void start(Launch l) {
        if (l != null && l.timed) {
            timing.start();
        }
    }

    /** Just after a launch, before the synchronisation: stops the clock when the launch is timed. */
    public void stop(Launch l) {
        if (l != null && l.timed) {
            timing.stop();
        }
    }

    /** After the launch completed and succeeded: records its time when it was timed. */
    public synchronized void finished(Launch l) {
        if (l == null || !l.timed) {
            return;
        }
        State s = l.state;
        if (s.pending != l.candidate || s.stage == Stage.CHOSEN) {
            return;
        }
        s.pending = -1;
        long t = timing.nanos();
        s.samples.get(l.candidate).add(t);
        s.launches++;
        s.nanos += t;
        if (s.stage == Stage.WATCHING) {
            long median = median(s.samples.get(0));
            if (median >= rules.minLaunchNanos()) {
                s.stage = Stage.TUNING;
                say(s.site.shapes.where() + ": kernel " + s.site.shapes.entry() + " [" + s.sizeClass + "]: timing "
                        + (s.site.shapes.blocks().size() - 1) + " other block shapes on the next calls (trips "
                        + s.trips + ", block " + dims(s.site.shapes.blocks().get(0)) + " takes " + us(median) + ")");
            } else if (s.samples.get(0).size() >= rules.watched()) {
                s.stage = Stage.CHOSEN;
                s.chosen = 0;
                s.keptShort = true;
                s.shortLaunches = s.launches;
                String outcome = "block " + dims(s.site.shapes.blocks().get(0)) + " kept: " + us(median)
                        + " a launch, below the " + us(rules.minLaunchNanos()) + " worth tuning";
                say(s.site.shapes.where() + ": kernel " + s.site.shapes.entry() + " [" + s.sizeClass + "]: " + outcome);
                if (listener != null) {
                    listener.tuned(s.site.shapes.entry(), s.sizeClass, s.launches, s.nanos, 0, outcome);
                }
            }
            return;
        }
        long own = median(s.samples.get(0));
        if (l.candidate != 0) {
            s.extra += Math.max(0, t - own);
            if (median(s.samples.get(l.candidate)) > rules.dropRatio() * own) {
                s.dropped[l.candidate] = true;
            }
        }
        boolean complete = true;
        for (int i = 0; i < s.samples.size(); i++) {
            if (!s.dropped[i] && s.samples.get(i).size() < rules.runs()) {
                complete = false;
            }
        }
        if (complete || s.extra > rules.budget() * own) {
            choose(s, complete);
        }
    }

    private void choose(State s, boolean complete) {
        List<int[]> blocks = s.site.shapes.blocks();
        int ownRuns = s.samples.get(0).size();
        long own = median(s.samples.get(0));
        int best = 0;
        long bestMedian = own;
        StringBuilder tried = new StringBuilder();
        for (int i = 0; i < blocks.size(); i++) {
            List<Long> xs = s.samples.get(i);
            tried.append(i > 0 ? ", " : "").append(dims(blocks.get(i))).append(' ');
            if (xs.isEmpty()) {
                tried.append("not run");
                continue;
            }
            long m = median(xs);
            tried.append(us(m)).append(i == 0 ? " (own)" : "")
                    .append(s.dropped[i] ? " (dropped)" : xs.size() < ownRuns ? " (not timed in full)" : "");
            if (i > 0 && !s.dropped[i] && xs.size() >= ownRuns && m < bestMedian) {
                best = i;
                bestMedian = m;
            }
        }
        if (best != 0 && bestMedian > (1 - rules.margin()) * own) {
            best = 0;
        }
        s.stage = Stage.CHOSEN;
        s.chosen = best;
        s.fixed = null;
        String outcome = "block " + dims(blocks.get(best)) + (best == 0
                ? " kept (no shape " + pct(rules.margin()) + " faster)"
                : " chosen, " + pct(1 - (double) bestMedian / own) + " faster than " + dims(blocks.get(0)));
        Path file = cache == null ? null
                : cache.write(s.site.shapes.kernel(), s.sizeClass, blocks.get(best), s.site.shapes.entry(), tried.toString());
        say(s.site.shapes.where() + ": kernel " + s.site.shapes.entry() + " [" + s.sizeClass + "]: tried "
                + tried + (complete ? "" : " (the tuning budget ran out)") + "; " + outcome + "; tuning took "
                + s.launches + " launches, " + us(s.nanos) + ", " + us(s.extra) + " above the own block"
                + (file != null ? "; kept in " + file : ""));
        if (listener != null) {
            listener.tuned(s.site.shapes.entry(), s.sizeClass, s.launches, s.nanos, s.extra, outcome);
        }
    }

    /** The size class of a launch: the bit length of each level's trip count, e.g. {@code 13x13} for 8190 × 8190. */
    public static String sizeClass(long[] trips) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < trips.length; i++) {
            b.append(i > 0 ? "x" : "").append(trips[i] < 0 ? "?" : Integer.toString(64 - Long.numberOfLeadingZeros(trips[i])));
        }
        return b.length() == 0 ? "0" : b.toString();
    }

    /** The median: the middle value, or the mean of the two middle values of an even count. */
    public static long median(List<Long> xs) {
        if (xs.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        long[] v = xs.stream().mapToLong(Long::longValue).sorted().toArray();
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
    }

    private static int indexOf(List<int[]> blocks, int[] b) {
        for (int i = 0; i < blocks.size(); i++) {
            if (Arrays.equals(blocks.get(i), b)) {
                return i;
            }
        }
        throw new IllegalArgumentException("not a candidate: " + Arrays.toString(b));
    }

    private static String tripsText(long[] trips) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < trips.length; i++) {
            b.append(i > 0 ? " x " : "").append(trips[i] < 0 ? "?" : Long.toString(trips[i]));
        }
        return b.toString();
    }

    static String dims(int[] b) {
        return b[0] + "x" + b[1] + "x" + b[2];
    }

    private static String us(long nanos) {
        return String.format(Locale.ROOT, "%.1f us", nanos / 1000.0);
    }

    private static String pct(double f) {
        return String.format(Locale.ROOT, "%.1f%%", f * 100);
    }

    private void say(String line) {
        if (report != null) {
            report.accept(line);
        }
    }

    /** Releases the clock's events. */
    @Override
    public void close() {
        timing.close();
    }

    /** Forgets the clock's events: the device is lost. */
    public void abandon() {
        timing.abandon();
    }
}
