package org.acc4j.runtime.launch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.acc4j.compiler.plan.ArrayUse;
import org.acc4j.compiler.plan.Gathering;
import org.acc4j.compiler.plan.HostNest;
import org.acc4j.compiler.plan.ValueReader;
import org.acc4j.compiler.plan.ValueSource;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.runtime.data.Aliasing;
import org.acc4j.runtime.profile.Profiler;

/**
 * The multicore target: with no GPU, each launch site's nest runs as JVM bytecode generated from its kernel IR
 * ({@link HostNest}), its outermost parallel level cut into chunks that {@link #threads()} threads run: the caller
 * and the pool's workers, each on a contiguous block of the chunks ({@link CorePool}). Data is the host's own memory:
 * nothing moves. A nest is translated on its first call; one the backend
 * does not translate runs as plain Java from then on, with its reason said once.
 */
public final class Multicore implements HostNest.Pool, AutoCloseable {
    private final int threads;
    private final int chunksPerThread;
    private final CorePool pool;
    private final Profiler profile;
    private final Consumer<String> report;
    /** Per site ("plan:site"): its {@link HostNest}, or the reason it runs as plain Java. */
    private final ConcurrentHashMap<String, Object> sites = new ConcurrentHashMap<>();
    private final java.util.Set<String> reported = ConcurrentHashMap.newKeySet();

    /**
     * @param threads the threads that run chunks (at least 1)
     * @param profile the time profile, or null
     * @param report takes the report's lines (a nest's target, threads, chunks and time, on its first run), or null
     */
    public Multicore(int threads, Profiler profile, Consumer<String> report) {
        this(threads, HostNest.CHUNKS_PER_THREAD, profile, report);
    }

    /**
     * @param threads the threads that run chunks (at least 1)
     * @param chunksPerThread chunks per thread of each nest's outermost parallel level (at least 1)
     * @param profile the time profile, or null
     * @param report takes the report's lines, or null
     */
    public Multicore(int threads, int chunksPerThread, Profiler profile, Consumer<String> report) {
        this.threads = Math.max(1, threads);
        this.chunksPerThread = Math.max(1, chunksPerThread);
        this.profile = profile;
        this.report = report;
        this.pool = new CorePool(this.threads, "acc4j-multicore");
    }

    @Override
    public int threads() {
        return threads;
    }

    @Override
    public int chunksPerThread() {
        return chunksPerThread;
    }

    /** Runs the chunks on the pool: the calling thread and the pool's workers, each on its block of chunks. */
    @Override
    public void run(int chunks, IntConsumer chunk) {
        pool.run(chunks, chunk);
    }

    /**
     * Runs launch site {@code site} of {@code plan}: the live-out values (possibly none), or {@link Launcher.HostInstead}
     * when the nest must run as plain Java this time (nothing ran). A Java exception of the nest reaches the caller
     * ({@link #raisedByKernel}), with nothing written.
     */
    public Object[] runSite(int planId, MethodPlan plan, int site, Class<?> owner, Object self, Object[] values)
            throws Launcher.HostInstead {
        String key = planId + ":" + site;
        Object prepared = sites.computeIfAbsent(key, k -> prepare(plan, site));
        if (prepared instanceof String reason) {
            throw new Launcher.HostInstead(reason, "compile");
        }
        HostNest nest = (HostNest) prepared;
        Sources sources = new Sources(owner);
        // fields of arrays' objects: gathered into arrays for this run, written back after it
        Object[] gathered = new Object[nest.arrays().size()];
        Gathering gathering = Binder.gather(nest.arrays(), sources, self, values, gathered);
        ValueReader reader = sources;
        if (gathering != null) {
            java.util.Map<ValueSource, Object> made = new java.util.HashMap<>();
            for (ArrayUse a : nest.arrays()) {
                if (gathered[a.index()] != null) {
                    made.put(a.source(), gathered[a.index()]);
                }
            }
            reader = (source, s, a) -> made.containsKey(source) ? made.get(source) : sources.value(source, s, a);
        }
        // null arrays and rows, and arrays reachable twice where the nest writes one, run as plain Java
        List<Aliasing.Use> uses = new ArrayList<>();
        for (ArrayUse a : nest.arrays()) {
            uses.add(new Aliasing.Use(a.name(), reader.value(a.source(), self, values), a.written()));
        }
        String problem = Aliasing.problem(uses);
        if (problem != null) {
            // a row shared with another name may lie outside the rows the nest writes: look again with those
            List<Aliasing.Use> ranged = new ArrayList<>();
            for (int i = 0; i < uses.size(); i++) {
                ArrayUse a = nest.arrays().get(i);
                Aliasing.Use u = uses.get(i);
                ranged.add(a.written() && a.dims() == 2 ? new Aliasing.Use(u.name(), u.array(), true,
                        nest.writtenRows(a, reader, self, values)) : u);
            }
            problem = Aliasing.problem(ranged);
        }
        if (problem != null) {
            throw new Launcher.HostInstead(problem);
        }
        String where = plan.displayName() + " (" + plan.source() + ":" + plan.sites().get(site).line() + ")";
        Profiler.Scope scope = profile == null ? null : profile.enter(Profiler.Kind.KERNELS, owner, plan.name(),
                plan.descriptor());
        try {
            Object out = nest.run(reader, self, values, this, l -> launched(where, key, l));
            if (gathering != null) {
                gathering.scatter(gathered);
            }
            return out == null ? new Object[0] : (Object[]) out;
        } catch (HostNest.Refused h) {
            if (scope != null) {
                scope.ranOnHost();
            }
            throw new Launcher.HostInstead(h.getMessage());
        } finally {
            if (scope != null) {
                scope.close();
            }
        }
    }

    private void launched(String where, String key, HostNest.Run l) {
        String what = description(l);
        if (profile != null) {
            profile.kernel(where + " nest " + l.kernel() + " (" + l.threads() + " threads)", l.nanos(),
                    new int[] {l.chunks(), 1, 1}, new int[] {1, 1, 1});
        }
        if (report != null && reported.add(key + ":" + l.kernel())) {
            report.accept(where + ": nest at line " + l.line() + " ran on the host's cores (multicore): " + what);
        }
    }

    /** {@code 16 threads, 256 chunks of 1000000 iterations, in place, 1.234 ms}. */
    static String description(HostNest.Run l) {
        return l.threads() + " thread" + (l.threads() == 1 ? "" : "s") + ", " + l.chunks() + " chunk"
                + (l.chunks() == 1 ? "" : "s") + " of " + l.trip() + " iteration" + (l.trip() == 1 ? "" : "s")
                + (l.inPlace() ? ", in place" : ", the arrays it writes saved first (it may throw)")
                + (l.order() == null ? "" : ", loops run " + l.order())
                + (l.colours() == 0 ? "" : ", colour by colour: " + l.colours() + " colour" + (l.colours() == 1 ? "" : "s")
                        + " one after the other") + ", "
                + String.format(java.util.Locale.ROOT, "%.3f ms", l.nanos() / 1e6);
    }

    private static Object prepare(MethodPlan plan, int site) {
        try {
            return HostNest.of(plan.sites().get(site).compiled().method());
        } catch (HostNest.Untranslated u) {
            return u.getMessage();
        }
    }

    /** Whether {@code t} is the Java exception a nest raised, not a failure of this target. */
    public boolean raisedByKernel(Throwable t) {
        return HostNest.raisedByKernel(t);
    }

    @Override
    public void close() {
        pool.close();
    }
}
