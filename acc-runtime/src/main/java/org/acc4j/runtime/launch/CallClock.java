package org.acc4j.runtime.launch;

/**
 * A diagnostic clock for the parts of a call of a {@code @Kernels} method on the device, for the per-call harness:
 * with {@code -Dacc4j.callClock=true} each part's time ({@link System#nanoTime()} at its end less the time at the end
 * of the part before) is kept, up to {@link #CAPACITY} calls' worth per part. Off by default: {@link #ON} is a
 * constant, so each {@code if (CallClock.ON)} around a {@link #mark} is compiled away and costs nothing.
 *
 * <p>The parts, in a call's order: its start ({@link Part#ENTER}: the plan, the call's data scope), the site's lookup
 * up to the launcher ({@link Part#SITE}: the device lock, the cached kernel), binding ({@link Part#BIND}: the arrays,
 * the aliasing and lost-array checks, the host's launch checks and bounds), the data ({@link Part#DATA}: the
 * present-table look-ups, written windows, kept layouts), the parameters ({@link Part#PACK}: trip count, proof,
 * grid, block shape, parameter slots), the launch ({@link Part#LAUNCH}: {@code cuLaunchKernel}), the wait
 * ({@link Part#SYNC}: {@code cuCtxSynchronize} and the error record), and the end ({@link Part#EXIT}: clauses exited,
 * the site's host effects, the scope closed). A call with nothing to launch has no {@code LAUNCH} or {@code SYNC}, and
 * a deferred launch no {@code SYNC}: it is waited for by the next operation that needs the device's data.
 *
 * <p>One measuring thread at a time (the harness's): the marks are not synchronised. This is the runtime's one
 * mutable static besides its singleton, and only a diagnostic switch makes it record anything.
 */
public final class CallClock {
    /** Whether the clock records ({@code -Dacc4j.callClock=true}, or {@code alloc}); read once. */
    public static final boolean ON = "true".equals(System.getProperty("acc4j.callClock"))
            || "alloc".equals(System.getProperty("acc4j.callClock"));
    /**
     * Whether each part's allocated bytes are counted as well ({@code -Dacc4j.callClock=alloc}: the thread's allocated
     * bytes read at each mark, which takes longer than reading the time).
     */
    public static final boolean BYTES = "alloc".equals(System.getProperty("acc4j.callClock"));
    /** The samples kept per part; later ones overwrite the oldest. */
    public static final int CAPACITY = 1 << 16;

    /** The parts of a call, in order. */
    public enum Part {
        ENTER("call start: plan, call scope"),
        SITE("site: lookup, device lock, cached kernel"),
        BIND("bind: arrays, aliasing, launch checks"),
        DATA("data: present table, windows, layouts"),
        PACK("parameters: trip, proof, grid, slots"),
        LAUNCH("cuLaunchKernel"),
        SYNC("cuCtxSynchronize + error record"),
        EXIT("end: clauses exited, scope closed");

        private final String what;

        Part(String what) {
            this.what = what;
        }

        /** What the part covers, for the harness's table. */
        public String what() {
            return what;
        }
    }

    private static final Part[] PARTS = Part.values();
    private static final long[][] SAMPLES = ON ? new long[PARTS.length][CAPACITY] : new long[0][];
    private static final int[] COUNTS = new int[PARTS.length];
    private static final long[] BYTE_SUMS = new long[PARTS.length];
    private static final com.sun.management.ThreadMXBean THREADS = BYTES
            ? (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean() : null;
    private static long last;
    private static long lastBytes;

    private CallClock() {
    }

    /** The start of a call: the next mark measures from here. */
    public static void start() {
        if (BYTES) {
            lastBytes = THREADS.getCurrentThreadAllocatedBytes();
        }
        last = System.nanoTime();
    }

    /** The end of {@code part}: its time since the last mark (or the start) is kept. */
    public static void mark(Part part) {
        long now = System.nanoTime();
        int p = part.ordinal();
        SAMPLES[p][COUNTS[p]++ & (CAPACITY - 1)] = now - last;
        if (BYTES) {
            long b = THREADS.getCurrentThreadAllocatedBytes();
            BYTE_SUMS[p] += b - lastBytes;
            lastBytes = b;
            last = System.nanoTime();
        } else {
            last = now;
        }
    }

    /** Forgets every sample. */
    public static void reset() {
        java.util.Arrays.fill(COUNTS, 0);
        java.util.Arrays.fill(BYTE_SUMS, 0);
    }

    /** The bytes {@code part} allocated per mark since the last {@link #reset} (0 unless {@link #BYTES}). */
    public static double bytesPerCall(Part part) {
        int n = COUNTS[part.ordinal()];
        return n == 0 ? 0 : (double) BYTE_SUMS[part.ordinal()] / n;
    }

    /** How many times {@code part} was marked since the last {@link #reset}. */
    public static int count(Part part) {
        return COUNTS[part.ordinal()];
    }

    /** The samples of {@code part} kept since the last {@link #reset}, in nanoseconds (a copy; empty when off). */
    public static long[] samples(Part part) {
        if (!ON) {
            return new long[0];
        }
        int n = Math.min(COUNTS[part.ordinal()], CAPACITY);
        return java.util.Arrays.copyOf(SAMPLES[part.ordinal()], n);
    }
}
