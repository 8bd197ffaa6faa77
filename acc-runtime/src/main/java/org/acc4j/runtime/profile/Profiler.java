package org.acc4j.runtime.profile;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.acc4j.runtime.Log;
import org.acc4j.runtime.data.TransferListener;

/**
 * The time profile (PGI's {@code -Minfo=time}, {@code PGI_ACC_TIME}): for each region, its entries and wall time,
 * the compile time of a {@code @Kernels} method, the launches and device times of each of its kernels, and the
 * bytes and times of its transfers each way.
 *
 * <p>A region is a {@code @Kernels} method or a {@code @Data} method, opened with {@link #enter} and closed with
 * {@link Scope#close()} on the same thread. Kernel times, compile times and transfers go to the innermost region
 * open on the thread that reports them (exclusive: a {@code @Kernels} call inside a {@code @Data} region has its
 * own transfers, the data region only those of its own clauses); transfers with no region open (the {@code Acc}
 * routines, host runs' copies) go to {@link Kind#OUTSIDE}. Wall time is inclusive: a region's time includes the
 * regions nested in it. So for every region, kernel time plus transfer time is at most its wall time.
 *
 * <p>Wall time comes from the clock given (nanoseconds; {@link System#nanoTime()} in the runtime, a fake in
 * tests), kernel times from CUDA events (see {@link org.acc4j.runtime.launch.Launcher}), transfer times from the
 * present table. Thread-safe. The runtime creates one only when profiling is on; otherwise nothing is recorded and
 * no CUDA event exists.
 */
public final class Profiler implements TransferListener {
    /** What a region is. */
    public enum Kind {
        /** A {@code @Kernels} method. */
        KERNELS,
        /** A {@code @Data} method. */
        DATA,
        /** Work done with no region open: the {@code Acc} routines' transfers. */
        OUTSIDE
    }

    /** Copies one way: how many, their bytes and their time. */
    public record Traffic(long copies, long bytes, long nanos) {
        public static final Traffic NONE = new Traffic(0, 0, 0);

        Traffic plus(long b, long ns) {
            return new Traffic(copies + 1, bytes + b, nanos + ns);
        }
    }

    /**
     * One kernel's launches.
     *
     * @param grid the grid of the first launch (x, y, z)
     * @param block the block of the first launch (x, y, z)
     */
    public record KernelStats(String name, long launches, long totalNanos, long minNanos, long maxNanos, int[] grid,
                              int[] block) {
        public KernelStats {
            grid = grid.clone();
            block = block.clone();
        }

        /** The mean device time of a launch, 0 without launches. */
        public long meanNanos() {
            return launches == 0 ? 0 : totalNanos / launches;
        }
    }

    /**
     * One region, as a snapshot.
     *
     * @param owner the class's binary name (empty for {@link Kind#OUTSIDE})
     * @param entries calls of the method (each entry of the region)
     * @param hostRuns entries that ran on the host instead (their time is not measured)
     * @param wallNanos time inside the runtime for the entries, nested regions included
     * @param compileNanos time compiling the method to PTX (first call)
     * @param loadNanos time loading its kernels (the driver's JIT of the PTX, first call)
     */
    public record RegionStats(Kind kind, String owner, String method, String descriptor, long entries, long hostRuns,
                              long wallNanos, long compileNanos, long loadNanos, Traffic toDevice, Traffic toHost,
                              List<KernelStats> kernels) {
        public RegionStats {
            kernels = List.copyOf(kernels);
        }

        /** {@code Class.method} with the class's simple name. */
        public String displayName() {
            if (kind == Kind.OUTSIDE) {
                return "outside regions";
            }
            return owner.substring(owner.lastIndexOf('.') + 1).replace('$', '.') + "." + method;
        }

        /** Device time of all launches of all kernels. */
        public long kernelNanos() {
            return kernels.stream().mapToLong(KernelStats::totalNanos).sum();
        }

        /** Time of the copies both ways. */
        public long transferNanos() {
            return toDevice.nanos() + toHost.nanos();
        }
    }

    /**
     * One kernel's tuning of its block shape at one size class ({@link org.acc4j.runtime.tune.Tuner}).
     *
     * @param launches the launches timed for it
     * @param nanos    their device time (part of the kernel's own time in its region)
     * @param extraNanos how much longer they took than the kernel's own block would have
     * @param outcome  the block chosen, for people
     */
    public record Tuning(String kernel, String sizeClass, long launches, long nanos, long extraNanos, String outcome) {
    }

    /**
     * The whole profile at one moment: the regions in order of first entry, then what happened outside, then the
     * tunings of block shapes in the order they finished.
     */
    public record Snapshot(String device, List<RegionStats> regions, RegionStats outside, List<Tuning> tunings) {
        public Snapshot {
            regions = List.copyOf(regions);
            tunings = List.copyOf(tunings);
        }

        public Snapshot(String device, List<RegionStats> regions, RegionStats outside) {
            this(device, regions, outside, List.of());
        }
    }

    /** An open region; close it on the thread that opened it. */
    public final class Scope implements AutoCloseable {
        private final Region region;
        private final ArrayDeque<Scope> stack;
        private final long start;
        private boolean closed;

        private Scope(Region region, ArrayDeque<Scope> stack, long start) {
            this.region = region;
            this.stack = stack;
            this.start = start;
        }

        /** This entry ran on the host instead of the device. */
        public void ranOnHost() {
            synchronized (Profiler.this) {
                region.hostRuns++;
            }
        }

        /** Adds the time since {@link #enter} to the region's wall time; later calls do nothing. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            long now = clock.getAsLong();
            stack.remove(this);
            synchronized (Profiler.this) {
                region.wall += now - start;
            }
        }
    }

    private static final class Kernel {
        final String name;
        long launches;
        long total;
        long min = Long.MAX_VALUE;
        long max;
        int[] grid;
        int[] block;

        Kernel(String name) {
            this.name = name;
        }
    }

    private static final class Region {
        final Kind kind;
        final String owner;
        final String method;
        final String descriptor;
        long entries;
        long hostRuns;
        long wall;
        long compile;
        long load;
        Traffic toDevice = Traffic.NONE;
        Traffic toHost = Traffic.NONE;
        final Map<String, Kernel> kernels = new LinkedHashMap<>();

        Region(Kind kind, String owner, String method, String descriptor) {
            this.kind = kind;
            this.owner = owner;
            this.method = method;
            this.descriptor = descriptor;
        }

        RegionStats stats() {
            List<KernelStats> ks = new ArrayList<>();
            for (Kernel k : kernels.values()) {
                ks.add(new KernelStats(k.name, k.launches, k.total, k.launches == 0 ? 0 : k.min, k.max, k.grid, k.block));
            }
            return new RegionStats(kind, owner, method, descriptor, entries, hostRuns, wall, compile, load, toDevice,
                    toHost, ks);
        }
    }

    private final LongSupplier clock;
    private final Map<String, Region> regions = new LinkedHashMap<>();
    private final Region outside = new Region(Kind.OUTSIDE, "", "", "");
    private final List<Tuning> tunings = new ArrayList<>();
    private final ThreadLocal<ArrayDeque<Scope>> open = ThreadLocal.withInitial(ArrayDeque::new);
    private volatile String device = "none";

    /** A profile whose wall times come from {@code clock} (nanoseconds). */
    public Profiler(LongSupplier clock) {
        this.clock = clock;
    }

    /** The device the regions run on, for the report. */
    public void device(String name) {
        this.device = name;
    }

    /** Opens an entry of a region on this thread. */
    public Scope enter(Kind kind, Class<?> owner, String method, String descriptor) {
        if (kind == Kind.OUTSIDE) {
            throw new IllegalArgumentException("the outside is not a region one enters");
        }
        String key = kind + " " + owner.getName() + "." + method + descriptor;
        Region r;
        if (Log.quiet()) {
            // the runtime's own warm-up call: recorded in a region the profile does not list
            r = new Region(kind, owner.getName(), method, descriptor);
        } else {
            synchronized (this) {
                r = regions.computeIfAbsent(key, k -> new Region(kind, owner.getName(), method, descriptor));
                r.entries++;
            }
        }
        ArrayDeque<Scope> stack = open.get();
        Scope s = new Scope(r, stack, clock.getAsLong());
        stack.push(s);
        return s;
    }

    /** The innermost region open on this thread, or the outside. */
    private Region current() {
        Scope s = open.get().peek();
        return s != null ? s.region : Log.quiet() ? new Region(Kind.OUTSIDE, "", "", "") : outside;
    }

    /** The current region's method was compiled (compile and load times, in nanoseconds). */
    public void compiled(long compileNanos, long loadNanos) {
        Region r = current();
        synchronized (this) {
            r.compile += compileNanos;
            r.load += loadNanos;
        }
    }

    /** A launch of {@code kernel} in the current region took {@code nanos} of device time. */
    public void kernel(String kernel, long nanos, int[] grid, int[] block) {
        Region r = current();
        synchronized (this) {
            Kernel k = r.kernels.computeIfAbsent(kernel, Kernel::new);
            if (k.launches == 0) {
                k.grid = grid.clone();
                k.block = block.clone();
            }
            k.launches++;
            k.total += nanos;
            k.min = Math.min(k.min, nanos);
            k.max = Math.max(k.max, nanos);
        }
    }

    /** A kernel's block shape was tuned at {@code sizeClass} (see {@link Tuning}). */
    public synchronized void tuned(String kernel, String sizeClass, long launches, long nanos, long extraNanos,
                                   String outcome) {
        if (Log.quiet()) {
            return;
        }
        tunings.add(new Tuning(kernel, sizeClass, launches, nanos, extraNanos, outcome));
    }

    @Override
    public void transferred(boolean toDevice, long bytes, long nanos) {
        Region r = current();
        synchronized (this) {
            if (toDevice) {
                r.toDevice = r.toDevice.plus(bytes, nanos);
            } else {
                r.toHost = r.toHost.plus(bytes, nanos);
            }
        }
    }

    /** The profile so far (regions still open count the entries closed so far in their wall time). */
    public synchronized Snapshot snapshot() {
        List<RegionStats> rs = new ArrayList<>();
        for (Region r : regions.values()) {
            rs.add(r.stats());
        }
        return new Snapshot(device, rs, outside.stats(), tunings);
    }
}
