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
import org.acc4j.runtime.data.CudaMemory;
import org.acc4j.runtime.data.PresentTable;
import org.acc4j.runtime.launch.Guard;
import org.acc4j.runtime.launch.Launcher;
import org.acc4j.runtime.launch.Offloader;
import org.acc4j.runtime.profile.Profiler;

/**
 * One run of the runtime on one GPU: it owns, in order of creation, the device's context, the present table, the
 * kernel cache and the launcher (with the {@link Guard} over them and the {@link Offloader} that uses them), and
 * the blocks {@code Acc.malloc} gave; {@link #close()} releases them in reverse order.
 *
 * <p>Every operation on the device goes through {@link #run} (or {@link #orHost}), which applies the runtime's one
 * device-loss policy ({@link LossPolicy}).
 */
final class Gpu implements AutoCloseable {
    final Device device;
    final Context context;
    final PresentTable table;
    final KernelCache cache;
    final Launcher launcher;
    final Guard guard;
    final Offloader offloader;
    private final LossPolicy loss;
    /** What {@code Acc.malloc} gave and was not freed, by device address. */
    final Map<Long, DeviceBuffer> blocks = new ConcurrentHashMap<>();

    private Gpu(Device device, Context context, PresentTable table, KernelCache cache, Launcher launcher,
                    Guard guard, Offloader offloader) {
        this.device = device;
        this.context = context;
        this.table = table;
        this.cache = cache;
        this.launcher = launcher;
        this.guard = guard;
        this.offloader = offloader;
        this.loss = new LossPolicy(guard);
    }

    /**
     * Opens {@code device} for this run of the runtime: its context, present table, kernel cache and launcher, in that order.
     *
     * @param profile the run's profile, or null when profiling is off
     * @param report where the compile report goes, or null when it is off
     */
    static Gpu open(Device device, Options options, Profiler profile, Consumer<String> report) {
        Context context = Context.open(device);
        CudaMemory memory = new CudaMemory(org.acc4j.runtime.transfer.StagedCopy.Settings.fromEnvironment(Log::warning));
        PresentTable table = new PresentTable(memory);
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
        // copies and frees of present data wait for the kernels calls left running
        launcher.defer(options.defer());
        memory.settleWith(launcher.pending());
        if (options.autotune()) {
            launcher.tuner(tuner(device, options, profile, report));
        }
        Guard guard = new Guard(context, table, cache, launcher);
        Offloader offloader = new Offloader(device, cache, launcher, guard, report != null ? report : line -> { },
                profile, options.dump(), options.sourcePath(), options.hoistChecks());
        if (profile != null) {
            table.listener(profile);
        }
        return new Gpu(device, context, table, cache, launcher, guard, offloader);
    }

    /**
     * The tuner of block shapes: chosen shapes kept in {@code tune/} beside the kernel cache's folder (none when it has
     * none), its lines in the report, its time in the profile.
     */
    private static org.acc4j.runtime.tune.Tuner tuner(Device device, Options options, Profiler profile,
                                                      Consumer<String> report) {
        org.acc4j.runtime.tune.ShapeCache shapes = options.cacheDir() == null ? null
                : new org.acc4j.runtime.tune.ShapeCache(options.cacheDir().resolve("tune"), device.name() + "|driver "
                        + Device.driverVersion() + "|" + device.smTarget(), Log::warning);
        return new org.acc4j.runtime.tune.Tuner(org.acc4j.runtime.tune.Rules.DEFAULT, shapes,
                new org.acc4j.runtime.tune.EventTiming(), report, profile == null ? null : profile::tuned);
    }

    /** The fault after which the device was lost, or null while it works. */
    DeviceFaultException lost() {
        return guard.lost();
    }

    /** The device-loss policy over this device: see {@link LossPolicy#run}. */
    <T> T run(String what, Supplier<T> work, Supplier<T> onHost) {
        return loss.run(what, work, onHost);
    }

    /** See {@link LossPolicy#orHost}. */
    <T> T orHost(Supplier<T> work, Supplier<T> onHost) {
        return loss.orHost(work, onHost);
    }

    /** See {@link LossPolicy#refuseLost}. */
    void refuseLost(String routine, Object array) {
        loss.refuseLost(routine, array);
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
