package org.acc4j.runtime.launch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.runtime.Log;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.cuda.LaunchArgs;
import org.acc4j.runtime.cuda.MappedMemory;
import org.acc4j.runtime.data.CudaMemory;

/**
 * The memory every synchronous launch uses besides the call's data: the kernels' error record and, where the device
 * maps host memory, each kernel variant's launch parameters.
 *
 * <p>With mapped pinned memory ({@link MappedMemory}) the error record is the first 64 bytes of the first block:
 * the host reads it after the launch's synchronisation with no copy, and each kernel variant's parameters are laid
 * out once after it. Without (the device cannot map host memory, or {@code acc4j.mapped} is off) the error record is
 * a device buffer copied back after each launch, and each launch builds its parameters anew. Not thread-safe: the
 * {@link Launcher} serialises its use.
 */
final class LaunchMemory {
    /** Bytes of each mapped block, and of the error record at the start of the first. */
    private static final int MAPPED_BYTES = 64 << 10;
    private static final int ERROR_RECORD_BYTES = 64;

    /**
     * A kernel variant's launch: its parameters in mapped memory (null when there is none: they are built per
     * launch), and its messages, made once.
     */
    record Plan(LaunchArgs args, String waitingFor, Parameters mapped) {
        Plan(LaunchArgs args, String waitingFor) {
            this(args, waitingFor, args == null ? null : new Parameters(args));
        }

        /** The parameters of one launch: the mapped ones, written in place, or new ones built for it. */
        Parameters parameters() {
            return mapped != null ? mapped : new Parameters(null);
        }
    }

    private final Device device;
    private final boolean useMapped;
    /** The error record in device memory; null while {@link #mapped} holds it instead. */
    private DeviceBuffer errorRecord;
    private final List<MappedMemory> mapped = new ArrayList<>();
    /** Bytes of the last mapped block taken so far. */
    private int mappedUsed;
    private final Map<Function, Plan> plans = new IdentityHashMap<>();
    private final long[] errorHost = new long[2];
    /** Whether the error record may hold a code: it is read after every launch and zeroed only when it did. */
    private boolean dirty = true;

    /**
     * Allocates the error record.
     *
     * @param mapped whether mapped pinned memory is used where the device can map it
     */
    LaunchMemory(Device device, boolean mapped) {
        this.device = device;
        this.useMapped = mapped;
        allocate();
    }

    /** The device address of the error record synchronous launches use. */
    long errorRecordAddress() {
        return errorRecord == null ? mapped.get(0).deviceAddress() : errorRecord.address();
    }

    /** Before a synchronous launch: clears the error record unless it is known to be clear. */
    void beforeLaunch() {
        if (dirty) {
            if (errorRecord == null) {
                ByteBuffer record = mapped.get(0).view();
                record.putLong(0, 0L);
                record.putLong(8, 0L);
            } else {
                errorRecord.zero();
            }
        }
        dirty = true;
    }

    /**
     * After a synchronous launch and its synchronisation: the error record's code (0 when the kernel raised nothing)
     * and detail, in an array reused by the next call.
     */
    long[] afterLaunch() {
        if (errorRecord == null) {
            // mapped: the kernel's stores reached host memory before the synchronisation returned
            ByteBuffer record = mapped.get(0).view();
            errorHost[0] = record.getInt(0);
            errorHost[1] = record.getLong(8);
        } else {
            errorRecord.copyToHost(errorHost);
            errorHost[0] = (int) errorHost[0];
        }
        dirty = errorHost[0] != 0;
        return errorHost;
    }

    /**
     * The launch plan of {@code f} ({@code params} parameters), laid out on its first launch; its message names the
     * kernel, its {@code method} and its loop's {@code source} file and {@code line}.
     */
    Plan plan(Function f, int params, String method, String source, int line) {
        Plan p = plans.get(f);
        if (p == null) {
            LaunchArgs args = null;
            if (!mapped.isEmpty()) {
                long bytes = LaunchArgs.bytes(params);
                if (bytes <= MAPPED_BYTES) {
                    try {
                        if (mappedUsed + bytes > MAPPED_BYTES) {
                            mapped.add(MappedMemory.allocate(MAPPED_BYTES, "launch parameters"));
                            mappedUsed = 0;
                        }
                        args = new LaunchArgs(mapped.get(mapped.size() - 1), mappedUsed, params);
                        mappedUsed += (int) bytes;
                    } catch (DriverException e) {
                        // no more mapped memory: this kernel builds its parameters per launch
                        args = null;
                    }
                }
            }
            p = new Plan(args, "kernel " + f.name() + " of " + method + " (" + source + ":" + line + ")");
            plans.put(f, p);
        }
        return p;
    }

    /**
     * Forgets everything without freeing it, after its context was destroyed (a sticky fault), and allocates a new
     * error record in the fresh context, current on this thread.
     */
    void renew() {
        abandon();
        allocate();
        dirty = true;
    }

    /** Forgets everything without freeing it: its context was destroyed. */
    void abandon() {
        if (errorRecord != null) {
            errorRecord.abandon();
        }
        for (MappedMemory m : mapped) {
            m.abandon();
        }
        mapped.clear();
        plans.clear();
    }

    /** Frees everything, going on past failures. */
    void close() {
        RuntimeException failure = null;
        for (MappedMemory m : mapped) {
            try {
                m.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        mapped.clear();
        plans.clear();
        if (errorRecord != null) {
            errorRecord.close();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The error record: in mapped pinned memory where the device maps host memory (and that is not switched off),
     * else in device memory.
     */
    private void allocate() {
        errorRecord = null;
        if (useMapped && device.canMapHostMemory()) {
            try {
                mapped.add(MappedMemory.allocate(MAPPED_BYTES, "the kernel error record and launch parameters"));
                mappedUsed = ERROR_RECORD_BYTES;
                return;
            } catch (DriverException e) {
                Log.debug("no mapped memory for the error record (" + e.getMessage()
                        + "): it is copied back after each launch");
            }
        }
        errorRecord = CudaMemory.allocateBuffer(16, "the kernel error record");
    }
}
