package org.acc4j.runtime.transfer;

import java.nio.ByteBuffer;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Copies whole primitive arrays between the Java heap and device memory through a pipeline of staging slots: the
 * array is cut into chunks; each chunk is copied between the array and a slot by several cores at once, and between
 * the slot and the device by an asynchronous copy, so that the host's copy of one chunk overlaps the device's copy
 * of the chunks before it (to the device) or after it (to the host). With pinned slots the device copies at the
 * link's speed, where a copy straight from a Java array goes through the driver's own staging at a fraction of it.
 *
 * <p>Arrays below {@link Settings#minBytes()}, and copies that find every lane busy or the host unwilling to pin
 * memory, are declined ({@code false}): the caller copies directly, which is slower but never wrong.
 *
 * <p>A copy returns once every byte has arrived. When one fails, the exception is thrown after the copies already
 * queued have been waited for, and the lane is freed rather than reused; the destination then holds a mix of old
 * and new data, which the caller must not take for a finished copy (a present-table entry whose upload threw is
 * never recorded). Byte offsets are 64-bit: arrays of more than 2 GiB are copied like any other.
 *
 * <p>Thread-safe: concurrent copies each take a lane of their own. Needs the device's context current on the
 * calling thread; the host-side copies run on the common fork-join pool and never touch the device.
 *
 * @param <D> device memory: a {@code DeviceBuffer} on CUDA
 */
public final class StagedCopy<D> implements AutoCloseable {

    /**
     * How copies are staged.
     *
     * @param minBytes      arrays smaller than this go direct
     * @param slotBytes     bytes per staging slot: the largest chunk (a multiple of 8)
     * @param slots         slots per lane: copies in flight plus the one being staged (at least 1)
     * @param lanes         lanes at most, each for one copy at a time: pinned memory is at most
     *                      {@code lanes * slots * slotBytes}
     * @param minChunkBytes the smallest chunk (a multiple of 8, at most {@code slotBytes})
     * @param chunksPerCopy an array is cut into at least this many chunks where {@code minChunkBytes} allows, so
     *                      that even a copy of a few slots overlaps the host's work with the device's
     * @param minPieceBytes the least a core is given of a chunk's host-side copy
     * @param rowsMinBytes  rows (whose direct path is a copy per row) of fewer bytes than this, or than
     *                      {@code minBytes}, go direct
     * @param threads       the threads that copy a chunk between the array and its slot: 0 for the common fork-join
     *                      pool's workers with the calling thread; else {@code threads - 1} threads of the copier's
     *                      own, which stay awake a little between copies, with the calling thread (1: the calling
     *                      thread alone)
     * @param copy          how the host copies between an array and a slot
     * @param pipelined     whether the host's pieces flow across chunks ({@link Pipeline}: each chunk's device copy
     *                      queued the moment its last piece is staged) rather than in rounds, one per chunk, each
     *                      waiting for its slowest piece
     * @param rampBytes     the first and last chunks of a copy grow from (and shrink back to) this size, doubling up
     *                      to the chunk size ({@link Plan}); 0 for chunks of one size
     * @param spinMicros    how long the copier's own staging threads keep looking for work after a copy before they
     *                      sleep ({@link Crew})
     * @param pollMicros    the least time between two questions to the lane whether a device copy is done (0: as
     *                      often as the calling thread has nothing else to do)
     * @param writeCombined whether copies to the device are staged in write-combined slots of their own (on CUDA
     *                      {@code CU_MEMHOSTALLOC_WRITECOMBINED}): the host's writes go to memory without reading
     *                      the lines first and the device reads them without looking into the host's caches; the
     *                      host never reads such a slot, so copies to the host keep cached slots. Pinned memory is
     *                      then at most {@code lanes * slots * slotBytes} per direction
     * @param wideBytes     copies of at least this many bytes are made by every core (where {@code threads} are
     *                      fewer and of the copier's own)
     * @param callerCopies  whether the calling thread of a pipelined copy copies pieces whenever it has nothing to
     *                      queue ({@code true}), or only while no helper has started ({@code false}: it is then
     *                      free to queue each chunk's device copy the moment its last piece is staged, and the copy
     *                      still ends when no helper ever starts)
     * @param interleave    whether a pipelined copy to the host queues its first device copies one per turn, looking
     *                      for a landed one between two, so that the host starts on the first chunk as soon as it
     *                      is there ({@code true}), or all of them before it looks ({@code false})
     * @param flushBytes    each piece copied for the device into a chunk of at most this many bytes is written back
     *                      from the host's caches at once ({@link Writeback}), so that the device reads it from memory
     *                      rather than out of the writing core's cache (0: none; nothing where the JVM cannot)
     * @param inThreads     the threads that copy a chunk for the device, below {@code wideBytes}, where the copier
     *                      has threads of its own (0: {@code threads})
     * @param inChunkBytes  the middle chunks of a copy to the device have this size (at most a slot; a multiple of 8),
     *                      whatever the copy's size; 0: {@code chunksPerCopy} chunks of at least {@code minChunkBytes}
     * @param outChunkBytes the same for copies to the host
     * @param inChunks      a copy to the device is cut into at least this many chunks (0: {@code chunksPerCopy})
     * @param outRampBytes  {@code rampBytes} of copies to the host
     */
    public record Settings(long minBytes, long slotBytes, int slots, int lanes, long minChunkBytes, int chunksPerCopy,
                           long minPieceBytes, long rowsMinBytes, int threads, HostCopy copy, boolean pipelined,
                           long rampBytes, long spinMicros, long pollMicros, boolean writeCombined, long wideBytes,
                           boolean callerCopies, boolean interleave, long flushBytes, int inThreads,
                           long inChunkBytes, long outChunkBytes, int inChunks, long outRampBytes) {

        private static final long MIB = 1L << 20;

        /**
         * The runtime's settings, from device probes on an H100 (PCIe 5, ~53 GB/s pinned) with 16 host cores. Slots
         * of 8 MiB, 6 per lane, beat slots of 32 MiB, 3 per lane, at 1 GiB (0.83-0.95 of pinned against 0.61-0.78).
         * The pieces flow across chunks ({@link Pipeline}), on threads of the copier's own that stay awake between
         * copies ({@link Crew}). There the device read a chunk of 1-2 MiB at 15-22 GB/s while its lines were still in
         * the caches of the cores that had just written them, and at 33-44 GB/s once they were written back
         * ({@link Writeback}), which costs the host's copies about half their speed; chunks of 4 MiB and more ran at
         * 50 GB/s without. So chunks up to 2 MiB are written back ({@link #flushBytes}); every core copies an array
         * of 64 MiB or more ({@link #wideBytes}). Against the previous settings (no write-back, half the cores, from
         * 8 MiB), in one device call: copyin/updateDevice of 8 MiB at 0.53-0.57 of pinned against 0.24-0.28, of
         * 16 MiB 0.56-0.61 against 0.37-0.38, of 1 GiB 0.85-0.92 against 0.69-0.93; copies to the host as before or
         * better. An array is cut into at least 8 chunks (32 on its way to the device) of at least 512 KiB, in pieces
         * of at least 16 KiB; on its way to the device the chunks ramp from 64 KiB at each end. Arrays from 4 MiB are
         * staged (at 4 MiB 0.23-0.27 of pinned against 0.17-0.21 from the Java array, where the driver's own copy
         * from pageable memory runs at 8-13 GB/s). Rows, whose direct path is a copy per row, are staged from
         * {@link #ROWS_MIN_BYTES}. Write-combined slots ({@link #writeCombined}) measured the same as cached ones
         * there, and are off. Pinned memory held: at most 2 lanes of 6 slots of 8 MiB, 96 MiB, opened on first use
         * and kept.
         *
         * <p>Then, in paired rounds against pinned copies in one process (TransferPairs; the native ceiling of
         * scripts/xfer-native.sh, whose best copies to the device with regular stores cut 8-64 MiB into 0.5-1 MiB
         * chunks on every core and wrote them back): copies to the device are cut into at least 32 chunks
         * ({@link #inChunks}: 512 KiB chunks up to 16 MiB, 1 MiB at 32, 2 MiB at 64, all written back) and made by
         * every core ({@link #inThreads}), which ran 1.04-1.10 times the previous settings' speed at 8 MiB, 1.17 at
         * 16, 1.28-1.30 at 32 and 1.07-1.09 at 64 and 128 MiB; cutting copies to the host into more chunks made them
         * slower (0.77-0.86 at 8-16 MiB with 16 chunks), so they keep 8. Copies to the host start with chunks of full
         * size ({@link #outRampBytes} 0): 1.08-1.11 times the speed with the ramp at 8 MiB, 1.06-1.08 at 16, the same
         * from 32 MiB. Against all the previous settings together, copies to the device ran 1.05-1.16 times as fast
         * at 8 MiB, 1.12-1.20 at 16, 1.18-1.24 at 32, 1.07-1.14 at 64 and 1.06-1.09 at 128 MiB; copies to the host
         * 1.05-1.08 at 8, 1.14 at 16, 1.04 at 32 MiB and the same above. Three quarters of the cores copy to the host
         * ({@link #threads}) below {@link #wideBytes}: against half of them 1.18-1.23 times as fast at 32 MiB, the
         * same at 8, 16, 64 and 128 MiB, where every core was slower at 8-16 MiB (0.85-0.93).
         */
        public static final Settings DEFAULT = new Settings(4 * MIB, 8 * MIB, 6, 2, MIB / 2, 8, MIB / 64,
                MIB, Math.max(1, Runtime.getRuntime().availableProcessors() * 3 / 4), HostCopy.BUFFER, true, MIB / 16,
                Crew.SPIN_MICROS, 0, false, 64 * MIB, true, true, 2 * MIB,
                Runtime.getRuntime().availableProcessors(), 0, 0, 32, 0);

        /** The least bytes of rows that are staged by default (when the settings' least is higher). */
        public static final long ROWS_MIN_BYTES = MIB;

        /** The system property (and, upper case with {@code _}, the environment variable) that overrides settings. */
        public static final String PROPERTY = "acc4j.staging";

        public Settings {
            if (minBytes < 0 || slotBytes < 8 || slotBytes % 8 != 0 || slotBytes > 1L << 30 || slots < 1 || lanes < 0
                    || minChunkBytes < 8 || minChunkBytes % 8 != 0 || minChunkBytes > slotBytes || chunksPerCopy < 1
                    || minPieceBytes < 1 || rowsMinBytes < 0 || threads < 0 || copy == null || rampBytes < 0
                    || spinMicros < 0 || pollMicros < 0 || wideBytes < 0 || flushBytes < 0 || inThreads < 0
                    || inChunkBytes < 0 || inChunkBytes % 8 != 0 || outChunkBytes < 0 || outChunkBytes % 8 != 0
                    || inChunks < 0 || outRampBytes < 0) {
                throw new IllegalArgumentException("bad staging settings: " + minBytes + " bytes at least, slots of "
                        + slotBytes + " bytes (a multiple of 8 up to 1 GiB), " + slots + " slots, " + lanes
                        + " lanes, chunks of " + minChunkBytes + " bytes at least (a multiple of 8 up to a slot), "
                        + chunksPerCopy + " chunks per copy, pieces of " + minPieceBytes + " bytes, rows from "
                        + rowsMinBytes + " bytes, " + threads + " threads, copies by " + copy + ", ramp from "
                        + rampBytes + " bytes, threads awake " + spinMicros + " us, polls " + pollMicros
                        + " us apart, every core from " + wideBytes + " bytes, written back up to " + flushBytes
                        + " bytes, " + inThreads + " threads to the device, chunks of " + inChunkBytes
                        + " bytes to the device and " + outChunkBytes + " to the host (multiples of 8, 0: by the copy's"
                        + " size), " + inChunks + " chunks per copy to the device, ramp to the host from "
                        + outRampBytes + " bytes");
            }
        }

        /** Settings with cached slots in both directions and every core from 64 MiB. */
        public Settings(long minBytes, long slotBytes, int slots, int lanes, long minChunkBytes, int chunksPerCopy,
                        long minPieceBytes, long rowsMinBytes, int threads, HostCopy copy, boolean pipelined,
                        long rampBytes, long spinMicros, long pollMicros) {
            this(minBytes, slotBytes, slots, lanes, minChunkBytes, chunksPerCopy, minPieceBytes, rowsMinBytes, threads,
                    copy, pipelined, rampBytes, spinMicros, pollMicros, false, 64 * MIB, true, true, 0, 0, 0, 0, 0,
                    rampBytes);
        }

        /** Settings with chunks of one size and the staging threads awake for {@link Crew#SPIN_MICROS} after a copy. */
        public Settings(long minBytes, long slotBytes, int slots, int lanes, long minChunkBytes, int chunksPerCopy,
                        long minPieceBytes, long rowsMinBytes, int threads, HostCopy copy, boolean pipelined) {
            this(minBytes, slotBytes, slots, lanes, minChunkBytes, chunksPerCopy, minPieceBytes, rowsMinBytes, threads,
                    copy, pipelined, 0, Crew.SPIN_MICROS, 0);
        }

        /** Settings with rows staged from {@link #ROWS_MIN_BYTES}, the common pool's threads and bulk buffer copies. */
        public Settings(long minBytes, long slotBytes, int slots, int lanes, long minChunkBytes, int chunksPerCopy,
                        long minPieceBytes) {
            this(minBytes, slotBytes, slots, lanes, minChunkBytes, chunksPerCopy, minPieceBytes, ROWS_MIN_BYTES, 0,
                    HostCopy.BUFFER, true);
        }

        /** These settings with the host's copies made by {@code threads} threads ({@link #threads()}). */
        public Settings withThreads(int threads) {
            return edit(b -> b.threads = threads);
        }

        /** These settings with the host's copies made by {@code copy}. */
        public Settings withCopy(HostCopy copy) {
            return edit(b -> b.copy = copy);
        }

        /** These settings with the host's pieces in a {@link Pipeline} ({@code true}) or in rounds per chunk. */
        public Settings withPipelined(boolean pipelined) {
            return edit(b -> b.pipelined = pipelined);
        }

        /** These settings with copies to the device staged in write-combined slots ({@code true}) or cached ones. */
        public Settings withWriteCombined(boolean writeCombined) {
            return edit(b -> b.writeCombined = writeCombined);
        }

        /** These settings with every core copying from {@code wideBytes} ({@link #wideBytes()}). */
        public Settings withWideBytes(long wideBytes) {
            return edit(b -> b.wideBytes = wideBytes);
        }

        /** These settings with the calling thread copying pieces ({@code true}) or leaving them to the helpers. */
        public Settings withCallerCopies(boolean callerCopies) {
            return edit(b -> b.callerCopies = callerCopies);
        }

        /** These settings with the first device copies to the host queued one per turn ({@code true}) or at once. */
        public Settings withInterleave(boolean interleave) {
            return edit(b -> b.interleave = interleave);
        }

        /**
         * These settings with every piece staged for the device written back from the caches ({@code true}) or none.
         */
        public Settings withWriteBack(boolean writeBack) {
            return withFlushBytes(writeBack ? Long.MAX_VALUE : 0);
        }

        /** These settings with the pieces of chunks up to {@code flushBytes} written back ({@link #flushBytes()}). */
        public Settings withFlushBytes(long flushBytes) {
            return edit(b -> b.flushBytes = flushBytes);
        }

        /**
         * These settings with middle chunks of {@code inChunkBytes} for copies to the device and of {@code
         * outChunkBytes} for copies to the host ({@link #inChunkBytes()}, {@link #outChunkBytes()}; 0: by the size).
         */
        public Settings withDirectionChunks(long inChunkBytes, long outChunkBytes) {
            return edit(b -> {
                b.inChunkBytes = inChunkBytes;
                b.outChunkBytes = outChunkBytes;
            });
        }

        /**
         * These settings with copies to the device cut into at least {@code inChunks} chunks ({@link #inChunks()}) and
         * copies to the host ramping from {@code outRampBytes} ({@link #outRampBytes()}).
         */
        public Settings withDirections(int inChunks, long outRampBytes) {
            return edit(b -> {
                b.inChunks = inChunks;
                b.outRampBytes = outRampBytes;
            });
        }

        /** These settings with {@code inThreads} threads copying for the device ({@link #inThreads()}). */
        public Settings withInThreads(int inThreads) {
            return edit(b -> b.inThreads = inThreads);
        }

        /** These settings changed by {@code change}, which sets fields of a {@link SettingsBuilder} holding them. */
        Settings edit(java.util.function.Consumer<SettingsBuilder> change) {
            SettingsBuilder b = new SettingsBuilder(this);
            change.accept(b);
            return b.build();
        }

        /**
         * {@code base} with the changes of {@code spec}, a comma-separated list of {@code key=value}: {@code min},
         * {@code rows}, {@code slot}, {@code chunk}, {@code piece}, {@code ramp}, {@code wide} in bytes (with an
         * optional suffix {@code k}, {@code m} or {@code g}), {@code slots}, {@code lanes}, {@code chunks},
         * {@code threads} as counts, {@code spin}, {@code poll} in microseconds, {@code copy} as {@code buffer} or
         * {@code unsafe}, {@code pipelined}, {@code wc} (write-combined slots to the device), {@code caller} (the
         * calling thread copies pieces), {@code interleave} (the first copies to the host queued one per turn) as
         * {@code true} or {@code false}; {@code flush} (pieces staged for the device into chunks up to this size
         * written back from the caches) in bytes, or {@code true} (all) or {@code false} (none); {@code inthreads}
         * (threads copying for the device) as a count; {@code inchunk}, {@code outchunk} (the middle chunks' size of
         * copies to the device, to the host; 0: by the copy's size) in bytes; {@code inchunks} (the least chunks of a
         * copy to the device; 0: {@code chunks}) as a count; {@code outramp} (the ramp of copies to the host;
         * {@code ramp} sets both) in bytes.
         * E.g. {@code slot=16m,slots=4,threads=8}.
         *
         * @throws IllegalArgumentException naming the entry that is not understood, or for settings out of range
         */
        public static Settings parse(String spec, Settings base) {
            return StagingSpec.parse(spec, base);
        }

        /**
         * {@link #DEFAULT} with the changes given by {@code -Dacc4j.staging=...} or else {@code ACC4J_STAGING}
         * ({@link #parse}); a setting not understood is reported through {@code warn} and the defaults kept.
         */
        public static Settings fromEnvironment(java.util.function.Consumer<String> warn) {
            String spec = System.getProperty(PROPERTY);
            if (spec == null) {
                spec = System.getenv("ACC4J_STAGING");
            }
            if (spec == null || spec.isBlank()) {
                return DEFAULT;
            }
            try {
                return parse(spec, DEFAULT);
            } catch (IllegalArgumentException e) {
                warn.accept(e.getMessage() + "; the default staging is kept");
                return DEFAULT;
            }
        }

    }

    /** Opens a lane of {@code slots} slots of {@code slotBytes} each; throws when the host cannot pin the memory. */
    @FunctionalInterface
    public interface Opener<D> {
        Lane<D> open(long slotBytes, int slots);
    }

    private final Settings settings;
    /** The lanes of copies to the host, and of copies to the device unless they have lanes of their own. */
    private final LanePool<D> pool;
    /** The write-combined lanes of copies to the device ({@link Settings#writeCombined}), or null: {@link #pool}. */
    private final LanePool<D> toDevicePool;
    /** Cores that copy a chunk together: the common pool's workers and the calling thread. */
    private final int cores;
    /**
     * Cores that copy a chunk of a copy of at least {@link Settings#wideBytes}: every core, where the settings'
     * threads are fewer and of the copier's own.
     */
    private final int wideCores;

    /** The cores that copy a chunk of a copy of {@code bytes} to the device ({@code in}) or to the host. */
    private int coresFor(long bytes, boolean in) {
        if (bytes >= settings.wideBytes()) {
            return wideCores;
        }
        return in && ownThreads > 0 && settings.inThreads() > 0 ? Math.min(settings.inThreads(), wideCores) : cores;
    }
    private final AtomicLong staged = new AtomicLong();
    private final AtomicLong declined = new AtomicLong();

    /**
     * @param opener opens a lane of the given slots (on CUDA, {@code CudaLane::open}); it may throw when the host
     *               cannot pin the memory, and the copies then go direct
     */
    public StagedCopy(Settings settings, Opener<D> opener) {
        this(settings, opener, null, settings.threads());
    }

    /**
     * @param writeCombined opens a lane of write-combined slots (on CUDA, {@code CudaLane::openWriteCombined}), for
     *                      copies to the device where the settings ask for them ({@link Settings#writeCombined})
     */
    public StagedCopy(Settings settings, Opener<D> opener, Opener<D> writeCombined) {
        this(settings, opener, writeCombined, settings.threads());
    }

    /**
     * @param threads the threads that copy a chunk between the array and its slot: 0 for the common fork-join pool's
     *                workers with the calling thread; else {@code threads - 1} threads of its own ({@link Crew}) with
     *                the calling thread (1: the calling thread alone)
     */
    public StagedCopy(Settings settings, Opener<D> opener, int threads) {
        this(settings, opener, null, threads);
    }

    /**
     * @param writeCombined opens a lane of write-combined slots for copies to the device where the settings ask for
     *                      them; null: copies to the device share the lanes of {@code opener}
     * @param threads       as in {@link #StagedCopy(Settings, Opener, int)}
     */
    public StagedCopy(Settings settings, Opener<D> opener, Opener<D> writeCombined, int threads) {
        if (threads < 0) {
            throw new IllegalArgumentException("staging threads: 0 for the common pool, or at least 1, not " + threads);
        }
        this.settings = settings;
        this.pool = new LanePool<>(opener, settings.slotBytes(), settings.slots(), settings.lanes());
        this.toDevicePool = settings.writeCombined() && writeCombined != null
                ? new LanePool<>(writeCombined, settings.slotBytes(), settings.slots(), settings.lanes()) : null;
        this.cores = threads == 0 ? ForkJoinPool.getCommonPoolParallelism() + 1 : threads;
        this.wideCores = threads <= 1 ? cores : Math.max(threads, Runtime.getRuntime().availableProcessors());
        this.ownThreads = threads > 1 ? wideCores - 1 : 0;
        if (settings.flushBytes() > 0 && !Writeback.available()) {
            org.acc4j.runtime.Log.debug("staged pieces are not written back from the caches: " + Writeback.missing());
        }
    }

    /** How many staging threads of its own this copier has (besides the caller), or 0: the common pool or none. */
    private final int ownThreads;
    /**
     * This copier's own staging threads, which stay awake a little between copies ({@link Crew}), started on first
     * use and ended by {@link #close}; null until then.
     */
    private volatile Crew crew;

    /** Where the helpers of a copy run: this copier's own threads, started when needed, or the common pool. */
    private synchronized java.util.concurrent.Executor workers() {
        if (ownThreads == 0) {
            return ForkJoinPool.commonPool();
        }
        if (crew == null) {
            crew = new Crew(ownThreads, settings.spinMicros() * 1000);
        }
        return crew;
    }

    /** Where staged copies record their timeline ({@link Trace}), or null: a probe's, never the runtime's. */
    private volatile Trace trace;

    /** Records the timeline of later copies in {@code trace} (null: none). */
    void trace(Trace trace) {
        this.trace = trace;
    }

    /** The settings. */
    public Settings settings() {
        return settings;
    }

    /**
     * Says that a copy of {@code bytes} is coming (the caller is about to allocate its device memory): where it will
     * be staged, this copier's sleeping staging threads are woken now ({@link Crew#rouse}), so that they are awake
     * when its pieces come. Returns at once; does nothing where the copier has no threads of its own or none yet.
     */
    public void expect(long bytes) {
        Crew c = crew;
        if (c != null && bytes > 0 && bytes >= Math.min(settings.minBytes(), settings.rowsMinBytes())) {
            c.rouse();
        }
    }

    /**
     * Copies the whole of {@code array} to the start of {@code device}, which must be large enough.
     *
     * @return false, having done nothing, when the copy is declined: the caller copies directly
     * @throws IllegalArgumentException for an array type that cannot be staged
     */
    public boolean toDevice(Object array, D device) {
        return copy(array, device, true);
    }

    /**
     * Copies the start of {@code device} into the whole of {@code array}.
     *
     * @return false, having done nothing, when the copy is declined: the caller copies directly
     * @throws IllegalArgumentException for an array type that cannot be staged
     */
    public boolean toHost(D device, Object array) {
        return copy(array, device, false);
    }

    /** Copies that went through the staging slots so far. */
    public long staged() {
        return staged.get();
    }

    /** Copies of at least {@link Settings#minBytes()} declined so far because no lane was free or could be opened. */
    public long declined() {
        return declined.get();
    }

    /** How many lanes (each with its pinned slots) are open now, of both kinds. */
    public int lanes() {
        return pool.lanes() + (toDevicePool == null ? 0 : toDevicePool.lanes());
    }

    /** How many write-combined lanes (for copies to the device) are open now. */
    public int writeCombinedLanes() {
        return toDevicePool == null ? 0 : toDevicePool.lanes();
    }

    /** Frees the staging memory (the runtime's shutdown); later copies open lanes again. Needs the context current. */
    @Override
    public void close() {
        Crew ending;
        synchronized (this) {
            ending = crew;
            crew = null;
        }
        try {
            try {
                pool.close();
            } finally {
                if (toDevicePool != null) {
                    toDevicePool.close();
                }
            }
        } finally {
            if (ending != null) {
                ending.close();
            }
        }
    }

    /** Forgets the staging memory without freeing it, because its context was destroyed. */
    public void abandon() {
        pool.abandon();
        if (toDevicePool != null) {
            toDevicePool.abandon();
        }
    }

    /**
     * Copies {@code rows} (arrays of one type and one length, each once or more) to the start of {@code device}, one
     * after the other with no gap: row {@code i} lands at byte {@code i * rowBytes}. One pipelined copy whatever the
     * number of rows; a chunk may hold the end of one row and the start of the next.
     *
     * @return false, having done nothing, when the copy is declined: the caller copies row by row
     * @throws IllegalArgumentException for rows of different types or lengths, or of a type that cannot be staged
     */
    public boolean rowsToDevice(Object[] rows, D device) {
        return copy(Host.of(rows), device, true);
    }

    /** Copies the start of {@code device} into {@code rows}, laid out as {@link #rowsToDevice} lays them out. */
    public boolean rowsToHost(D device, Object[] rows) {
        return copy(Host.of(rows), device, false);
    }

    /**
     * Copies rows {@code [firstRow, endRow)} of {@code device}, laid out as {@link #rowsToDevice} lays out {@code
     * rows}, into those rows, writing only their columns {@code [firstColumn, endColumn)}: the device moves the
     * rows whole (one contiguous range), the host takes the window out of the slots.
     *
     * @return false, having done nothing, when the copy is declined
     */
    public boolean rowsToHost(D device, Object[] rows, int firstRow, int endRow, int firstColumn, int endColumn) {
        return copy(Host.of(rows).window(firstRow, endRow, firstColumn, endColumn), device, false);
    }

    /**
     * The host side of a copy: one array, or rows of one length seen as one array of {@code length} elements, the
     * first at row {@code firstRow} (whose data starts at byte {@link #deviceOffset()} of the device's), of which
     * only the columns {@code [firstColumn, endColumn)} are copied.
     */
    record Host(Object array, Object[] rows, int width, int rowLength, long length, int firstRow, int firstColumn,
                int endColumn) {
        Host(Object array, Object[] rows, int width, int rowLength, long length) {
            this(array, rows, width, rowLength, length, 0, 0, rowLength);
        }

        static Host of(Object array) {
            int width = Slices.width(array);
            return new Host(array, null, width, 0, java.lang.reflect.Array.getLength(array));
        }

        /** These rows' {@code [firstRow, endRow)}, their columns {@code [firstColumn, endColumn)} only. */
        Host window(int first, int end, int firstCol, int endCol) {
            if (rows == null || first < 0 || end > rows.length || first > end || firstCol < 0 || endCol > rowLength
                    || firstCol > endCol) {
                throw new IllegalArgumentException("rows [" + first + ", " + end + ") and columns [" + firstCol
                        + ", " + endCol + ") of " + rows.length + " rows of " + rowLength);
            }
            return new Host(null, rows, width, rowLength, (long) (end - first) * rowLength, first, firstCol, endCol);
        }

        /** Where the first element copied lies in the device's data, in bytes. */
        long deviceOffset() {
            return (long) firstRow * rowLength * width;
        }

        static Host of(Object[] rows) {
            if (rows.length == 0) {
                return new Host(null, rows, 1, 0, 0);
            }
            Class<?> type = rows[0].getClass();
            int rowLength = java.lang.reflect.Array.getLength(rows[0]);
            for (Object row : rows) {
                if (row.getClass() != type || java.lang.reflect.Array.getLength(row) != rowLength) {
                    throw new IllegalArgumentException("rows of one type and length, not " + type.getTypeName()
                            + " and " + row.getClass().getTypeName() + "[" + java.lang.reflect.Array.getLength(row)
                            + "] together");
                }
            }
            return new Host(null, rows, Slices.width(rows[0]), rowLength, (long) rows.length * rowLength);
        }

        /** Copies elements [first, first + count) between this host data and {@code slot} at byte {@code at}. */
        void copy(HostCopy how, long first, int count, ByteBuffer slot, int at, boolean in) {
            if (rows == null) {
                if (in) {
                    how.put(array, (int) first, count, slot, at);
                } else {
                    how.get(slot, at, array, (int) first, count);
                }
                return;
            }
            while (count > 0) {
                Object row = rows[firstRow + (int) (first / rowLength)];
                int from = (int) (first % rowLength);
                int n = Math.min(count, rowLength - from);
                // only the window's columns: the slot keeps its place for the others
                int lo = Math.max(from, firstColumn);
                int hi = Math.min(from + n, endColumn);
                if (lo < hi) {
                    if (in) {
                        how.put(row, lo, hi - lo, slot, at + (lo - from) * width);
                    } else {
                        how.get(slot, at + (lo - from) * width, row, lo, hi - lo);
                    }
                }
                first += n;
                count -= n;
                at += n * width;
            }
        }
    }

    private boolean copy(Object array, D device, boolean in) {
        if (array instanceof boolean[]) {
            // one byte per element on the device, 0 or 1: the direct path converts it
            return false;
        }
        return copy(Host.of(array), device, in);
    }

    private boolean copy(Host host, D device, boolean in) {
        long bytes = (long) host.width() * host.length();
        long least = host.rows() == null ? settings.minBytes() : Math.min(settings.minBytes(), settings.rowsMinBytes());
        if (bytes == 0 || bytes < least) {
            return false;
        }
        Trace t = trace;
        if (t != null) {
            t.add(Trace.Kind.BEGIN, bytes);
        }
        LanePool<D> lanes = in && toDevicePool != null ? toDevicePool : pool;
        Lane<D> lane = lanes.take();
        if (lane == null) {
            declined.incrementAndGet();
            return false;
        }
        try {
            Plan plan = plan(host.width(), host.length(), in);
            if (t != null) {
                t.add(Trace.Kind.LANE, plan.chunks());
            }
            int c = coresFor(bytes, in);
            if (settings.pipelined() && c > 1 && plan.pieces() > 1) {
                Pipeline.run(plan, host, lane, device, in, workers(), c - 1, t, settings.pollMicros() * 1000,
                        settings.callerCopies(), settings.interleave(), settings.flushBytes());
            } else if (in) {
                toDevice(plan, host, lane, device);
            } else {
                toHost(plan, host, lane, device);
            }
            lane.drain();
            if (t != null) {
                t.add(Trace.Kind.END, 0);
            }
        } catch (RuntimeException | Error e) {
            lanes.discard(lane, e);
            throw e;
        }
        lanes.give(lane);
        staged.incrementAndGet();
        return true;
    }

    /** The plan of a copy to the host of {@code length} elements of {@code width} bytes. */
    Plan plan(int width, long length) {
        return plan(width, length, false);
    }

    /** The plan of a copy of {@code length} elements of {@code width} bytes to the device ({@code in}) or the host. */
    Plan plan(int width, long length, boolean in) {
        long bytes = (long) width * length;
        long fixed = in ? settings.inChunkBytes() : settings.outChunkBytes();
        int count = in && settings.inChunks() > 0 ? settings.inChunks() : settings.chunksPerCopy();
        long wanted = (ceilDiv(bytes, count) + 7) & ~7L;
        long chunkBytes = Math.min(settings.slotBytes(),
                fixed > 0 ? fixed : Math.max(settings.minChunkBytes(), wanted));
        long ramp = in ? settings.rampBytes() : settings.outRampBytes();
        return new Plan(width, length, (int) (chunkBytes / width), ramp / width,
                ceilDiv(settings.minPieceBytes(), width), coresFor(bytes, in), settings.copy());
    }

    /** Stages chunk c in slot c % slots once that slot's copy c - slots is done, and queues its copy to the device. */
    private void toDevice(Plan plan, Host array, Lane<D> lane, D device) {
        int slots = lane.slots();
        for (long c = 0; c < plan.chunks(); c++) {
            int slot = (int) (c % slots);
            if (c >= slots) {
                lane.await(slot);
            }
            long first = plan.first(c);
            int count = plan.count(c);
            host(plan, array, first, count, lane.host(slot), true);
            lane.toDevice(slot, (long) count * plan.width(), device, array.deviceOffset() + first * plan.width());
        }
    }

    /** Queues the first chunks, one per slot; then takes each chunk out of its slot and queues the next into it. */
    private void toHost(Plan plan, Host array, Lane<D> lane, D device) {
        int slots = lane.slots();
        for (long c = 0; c < Math.min(slots, plan.chunks()); c++) {
            queueToHost(plan, array, lane, device, c, (int) c);
        }
        for (long c = 0; c < plan.chunks(); c++) {
            int slot = (int) (c % slots);
            lane.await(slot);
            host(plan, array, plan.first(c), plan.count(c), lane.host(slot), false);
            if (c + slots < plan.chunks()) {
                queueToHost(plan, array, lane, device, c + slots, slot);
            }
        }
    }

    private void queueToHost(Plan plan, Host array, Lane<D> lane, D device, long chunk, int slot) {
        lane.toHost(device, array.deviceOffset() + plan.first(chunk) * plan.width(), slot,
                (long) plan.count(chunk) * plan.width());
    }

    /** Copies elements [first, first + count) between the array and the start of a slot, in pieces on several cores. */
    private void host(Plan plan, Host array, long first, int count, ByteBuffer slot, boolean in) {
        hostPieces(plan, array, first, count, slot, in);
        if (in && (long) count * plan.width() <= settings.flushBytes()) {
            Writeback.range(slot, 0, (long) count * plan.width());
        }
    }

    private void hostPieces(Plan plan, Host array, long first, int count, ByteBuffer slot, boolean in) {
        int per = plan.pieceElements();
        int pieces = (int) ceilDiv(count, per);
        if (pieces == 1 || cores == 1) {
            piece(plan, array, first, count, slot, 0, in);
            return;
        }
        if (ownThreads == 0) {
            IntStream.range(0, pieces).parallel().forEach(p -> pieceOf(plan, array, first, count, slot, in, per, p));
            return;
        }
        // the calling thread takes the last piece while the pool's workers take the others
        java.util.List<java.util.concurrent.CompletableFuture<Void>> tasks = new java.util.ArrayList<>(pieces - 1);
        for (int p = 0; p < pieces - 1; p++) {
            int piece = p;
            tasks.add(java.util.concurrent.CompletableFuture.runAsync(
                    () -> pieceOf(plan, array, first, count, slot, in, per, piece), workers()));
        }
        RuntimeException failure = null;
        try {
            pieceOf(plan, array, first, count, slot, in, per, pieces - 1);
        } catch (RuntimeException e) {
            failure = e;
        }
        for (java.util.concurrent.CompletableFuture<Void> t : tasks) {
            try {
                t.join();
            } catch (java.util.concurrent.CompletionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : e;
                if (failure == null) {
                    failure = cause;
                } else {
                    failure.addSuppressed(cause);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void pieceOf(Plan plan, Host array, long first, int count, ByteBuffer slot, boolean in, int per,
                         int p) {
        int from = p * per;
        piece(plan, array, first + from, Math.min(per, count - from), slot, from, in);
    }

    private void piece(Plan plan, Host array, long first, int count, ByteBuffer slot, int slotElement,
                       boolean in) {
        array.copy(plan.copy(), first, count, slot, slotElement * plan.width(), in);
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
