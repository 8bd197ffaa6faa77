package org.acc4j.runtime;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.acc4j.runtime.cache.CubinCache;
import org.acc4j.runtime.cache.KernelCache;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.cuda.DeviceLostException;
import org.acc4j.runtime.data.CudaMemory;
import org.acc4j.runtime.data.PresentTable;
import org.acc4j.runtime.launch.Guard;
import org.acc4j.runtime.launch.Launcher;
import org.acc4j.runtime.launch.Offloader;
import org.acc4j.runtime.profile.Profile;

/**
 * One run of the runtime on one GPU: it owns, in order of creation, the device's context, the present table, the
 * kernel cache and the launcher (with the {@link Guard} over them and the {@link Offloader} that uses them), and
 * the blocks {@code Acc.malloc} gave; {@link #close()} releases them in reverse order.
 *
 * <p>It also holds the runtime's one device-loss policy, {@link #run}: while the device works an operation runs
 * under the device lock; once a fault has lost the device, before the call or during it, the operation acts as it
 * would on the host, and an array whose device-side changes the fault lost is refused by name.
 */
final class Session implements AutoCloseable {
    final Device device;
    final Context context;
    final PresentTable table;
    final KernelCache cache;
    final Launcher launcher;
    final Guard guard;
    final Offloader offloader;
    /** What {@code Acc.malloc} gave and was not freed, by device address. */
    final Map<Long, DeviceBuffer> blocks = new ConcurrentHashMap<>();

    private Session(Device device, Context context, PresentTable table, KernelCache cache, Launcher launcher,
                    Guard guard, Offloader offloader) {
        this.device = device;
        this.context = context;
        this.table = table;
        this.cache = cache;
        this.launcher = launcher;
        this.guard = guard;
        this.offloader = offloader;
    }

    /**
     * Opens a session on {@code device}: its context, present table, kernel cache and launcher, in that order.
     *
     * @param profile the run's profile, or null when profiling is off
     * @param report where the compile report goes, or null when it is off
     */
    static Session open(Device device, Options options, Profile profile, Consumer<String> report) {
        Context context = Context.open(device);
        PresentTable table = new PresentTable(new CudaMemory());
        KernelCache cache = new KernelCache(options.cache() == Options.CacheMode.CUBIN && options.cacheDir() != null
                ? new CubinCache<>(options.cacheDir(), Device.driverVersion(), device.smTarget(), KernelCache.CUDA,
                        Log::warning)
                : null);
        Launcher launcher;
        try {
            launcher = new Launcher(device, context, table, profile, report, options.mapped());
        } catch (RuntimeException e) {
            // no room for the error record: give the context back
            context.close();
            throw e;
        }
        Guard guard = new Guard(context, table, cache, launcher);
        Offloader offloader = new Offloader(device, cache, launcher, guard, report != null ? report : line -> { },
                profile, options.dump(), options.sourcePath(), options.hoistChecks());
        if (profile != null) {
            table.listener(profile);
        }
        return new Session(device, context, table, cache, launcher, guard, offloader);
    }

    /** The fault after which the device was lost, or null while it works. */
    DeviceFaultException lost() {
        return guard.lost();
    }

    /**
     * The device-loss policy: runs {@code work} under the device lock ({@code what} names it in a fault's message)
     * while the device works, else {@code onHost}, what the operation does on the host. A loss found during the work
     * goes to {@code onHost} too; a loss that names an array is thrown.
     */
    <T> T run(String what, Supplier<T> work, Supplier<T> onHost) {
        return orHost(() -> guard.run(what, work::get), onHost);
    }

    /**
     * {@link #run} for work that takes the device lock itself, where it needs it (an offload compiles before it
     * launches, and must not hold the lock meanwhile).
     */
    <T> T orHost(Supplier<T> work, Supplier<T> onHost) {
        if (guard.lost() == null) {
            try {
                return work.get();
            } catch (DeviceLostException e) {
                if (e.array() != null) {
                    throw e;
                }
            }
        }
        return onHost.get();
    }

    /**
     * Refuses {@code array} in {@code routine} when a fault lost the device-side changes a kernel had made to it
     * (its host copy is stale).
     */
    void refuseLost(String routine, Object array) {
        String lost = guard.lostArray(array);
        if (lost != null) {
            throw DeviceLostException.array(routine, lost, guard.lost());
        }
    }

    /** Frees everything in reverse order of creation, going on past failures; the context is always released. */
    @Override
    public void close() {
        synchronized (guard) {
            // the device lock: the call in progress ends first
            RuntimeException failure = null;
            List<Runnable> steps = guard.lost() == null
                    ? List.of(context::makeCurrent, launcher::close, this::freeBlocks, cache::close, table::close,
                            context::close)
                    // the device is lost: everything on it was abandoned; try to give the context back
                    : List.of(table::close, () -> {
                        blocks.values().forEach(DeviceBuffer::abandon);
                        blocks.clear();
                    }, () -> {
                        try {
                            context.close();
                        } catch (RuntimeException e) {
                            // the poisoned context refuses its release too; the process's end takes it
                        }
                    });
            for (Runnable step : steps) {
                try {
                    step.run();
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        }
    }

    /** Frees what {@code Acc.malloc} gave and was not freed. */
    private void freeBlocks() {
        RuntimeException failure = null;
        for (DeviceBuffer b : blocks.values()) {
            try {
                b.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        blocks.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
