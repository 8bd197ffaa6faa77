package org.acc4j.runtime;

import java.util.function.Consumer;
import org.acc4j.Acc;
import org.acc4j.DeviceProperties;
import org.acc4j.runtime.async.Queue;
import org.acc4j.runtime.async.QueuedData;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.data.Buffer;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.CudaMemory;
import org.acc4j.runtime.data.HostArrays;
import org.acc4j.runtime.data.PresentTable;
import org.acc4j.runtime.data.SharedPresence;
import org.acc4j.spi.Backend;

/**
 * The {@code Acc} routines on the runtime ({@link Acc#install} takes {@link AccRuntime#backend()}): data clauses,
 * queues, devices and device memory. Without a GPU they act as OpenACC says of shared memory (the multicore
 * target keeps the present counts); once the device is lost they act as on the host ({@link Gpu#run}).
 */
final class Routines implements Backend {
    private final AccRuntime runtime;

    Routines(AccRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public String name() {
        return runtime.name();
    }

    @Override
    public void init() {
        runtime.init();
    }

    @Override
    public void shutdown() {
        runtime.shutdown();
    }

    @Override
    public String report() {
        return runtime.report();
    }

    @Override
    public boolean onDevice() {
        return runtime.onDevice();
    }

    @Override
    public int deviceCount() {
        return runtime.gpu() == null ? 0 : Device.all().size();
    }

    // ------------------------------------------------------------------ data clauses

    @Override
    public void copyin(Object array) {
        withTable("Acc.copyin", false, array, t -> t.enterDynamic(array, Clause.COPYIN));
    }

    @Override
    public void create(Object array) {
        withTable("Acc.create", false, array, t -> t.enterDynamic(array, Clause.CREATE));
    }

    @Override
    public void copyout(Object array) {
        withTable("Acc.copyout", false, array, t -> t.exitDynamic(array, Clause.COPYOUT, false));
    }

    @Override
    public void delete(Object array) {
        withTable("Acc.delete", true, array, t -> t.exitDynamic(array, Clause.DELETE, false));
    }

    @Override
    public void updateDevice(Object array) {
        withTable("Acc.updateDevice", false, array, t -> t.updateDevice(array));
    }

    @Override
    public void updateHost(Object array) {
        withTable("Acc.updateHost", false, array, t -> t.updateHost(array));
    }

    @Override
    public void copyoutFinalize(Object array) {
        withTable("Acc.copyoutFinalize", false, array, t -> t.exitDynamic(array, Clause.COPYOUT, true));
    }

    @Override
    public void deleteFinalize(Object array) {
        withTable("Acc.deleteFinalize", true, array, t -> t.exitDynamic(array, Clause.DELETE, true));
    }

    @Override
    public boolean isPresent(Object array) {
        Gpu s = runtime.gpu();
        // isPresent frees the buffers of reclaimed arrays, which needs the context; on the host (and once the
        // device is lost) every array is "present", as OpenACC says of shared memory
        if (s == null) {
            // the multicore target keeps OpenACC's counts on shared memory
            AccRuntime.Cores c = runtime.cores();
            return c == null || c.shared().isPresent(array);
        }
        return s.run("Acc.isPresent", () -> s.table.isPresent(array), () -> true);
    }

    @Override
    public void waitAll() {
        Gpu s = runtime.gpu();
        if (s != null) {
            // one wait covers the deferred kernels too (a fault names them)
            s.orHost(() -> s.guard.call("Acc.waitAll", () -> {
                s.launcher.queues().finishAll();
                org.acc4j.runtime.cuda.Pending p = s.launcher.pending();
                if (p.any()) {
                    s.context.synchronize("Acc.waitAll: " + p.describe());
                    p.settled();
                } else {
                    s.context.synchronize("Acc.waitAll");
                }
                return null;
            }), () -> null);
        }
    }

    /**
     * A synchronous data routine under the device lock, after every queue. Once the device is lost it acts as on the
     * host. An array whose device-side changes a fault lost is refused, except by a delete ({@code deletes}), which
     * says the device copy is not wanted and forgets the loss.
     */
    private void withTable(String routine, boolean deletes, Object array, Consumer<PresentTable> op) {
        Gpu s = runtime.gpu();
        if (s == null) {
            AccRuntime.Cores c = runtime.cores();
            if (c != null && array != null) {
                shared(c.shared(), routine, array);
            }
            return;
        }
        // an array whose device-side changes a fault lost is refused, also once the device is lost
        if (deletes) {
            s.guard.forgetLost(array);
        } else {
            s.refuseLost(routine, array);
        }
        s.run(routine + " of " + HostArrays.describe(array), () -> {
            // a synchronous routine sees everything queued before it
            s.launcher.queues().finishAll();
            op.accept(s.table);
            return null;
        }, () -> null);
    }

    /** A data routine on shared memory: nothing moves, the counts follow OpenACC's rules. */
    private static void shared(SharedPresence counts, String routine, Object array) {
        switch (routine) {
            case "Acc.copyin", "Acc.create" -> counts.enter(array, false);
            case "Acc.copyout", "Acc.delete" -> counts.exit(array, false, false);
            case "Acc.copyoutFinalize", "Acc.deleteFinalize" -> counts.exit(array, false, true);
            default -> { }
        }
    }

    // ------------------------------------------------------------------ devices and device memory

    @Override
    public int deviceNumber() {
        Gpu s = runtime.gpu();
        return s == null ? 0 : s.device.ordinal();
    }

    @Override
    public void deviceNumber(int number) {
        runtime.deviceNumber(number);
    }

    @Override
    public DeviceProperties properties(int number) {
        Gpu s = runtime.gpu();
        int count = s == null ? 0 : AccRuntime.deviceCountOrZero();
        if (count == 0) {
            return Backend.super.properties(number);
        }
        if (number >= count) {
            throw new IllegalArgumentException("acc4j: Acc.deviceProperties(" + number + "): there is no device "
                    + number + ": " + AccRuntime.devicesThere(count));
        }
        Device d = Device.get(number);
        long free = number != s.device.ordinal() ? -1
                : s.run("Acc.deviceProperties", () -> s.context.memInfo().free(), () -> -1L);
        return new DeviceProperties(number, d.name(), d.totalMemory(), free, d.computeMajor(), d.computeMinor(),
                d.multiprocessors());
    }

    @Override
    public long malloc(long bytes) {
        Gpu s = runtime.gpu();
        if (s == null || bytes == 0) {
            return 0;
        }
        return s.run("Acc.malloc(" + bytes + ")", () -> {
            DeviceBuffer b = CudaMemory.allocateBuffer(bytes, "Acc.malloc(" + bytes + ")");
            s.blocks.put(b.address(), b);
            return b.address();
        }, () -> 0L);
    }

    @Override
    public void free(long address) {
        Gpu s = runtime.gpu();
        if (address == 0) {
            return;
        }
        DeviceBuffer b = s == null ? null : s.blocks.remove(address);
        if (b == null) {
            throw new IllegalArgumentException("acc4j: Acc.free(0x" + Long.toHexString(address) + "): not an address"
                    + " Acc.malloc gave, or freed already");
        }
        s.run("Acc.free(0x" + Long.toHexString(address) + ")", () -> {
            // a queue may still use it
            s.launcher.queues().finishAll();
            b.close();
            return null;
        }, () -> {
            b.abandon();
            return null;
        });
    }

    @Override
    public long deviceptr(Object array) {
        Gpu s = runtime.gpu();
        if (s == null) {
            return 0;
        }
        return s.run("Acc.deviceptr of " + HostArrays.describe(array), () -> {
            Buffer b = s.table.lookup(array);
            return b == null ? 0L : b.address();
        }, () -> 0L);
    }

    @Override
    public Object hostptr(long address) {
        Gpu s = runtime.gpu();
        String routine = "Acc.hostptr(0x" + Long.toHexString(address) + ")";
        if (s == null) {
            throw notPresent(routine, " (no device in use: arrays have no device copies)");
        }
        return s.run(routine, () -> {
            try {
                return s.table.hostArray(address);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("acc4j: " + routine + ": " + e.getMessage(), e);
            }
        }, () -> {
            throw notPresent(routine, " (the device was lost)");
        });
    }

    private static IllegalArgumentException notPresent(String routine, String why) {
        return new IllegalArgumentException("acc4j: " + routine + ": not the device address of a present array" + why);
    }

    // ------------------------------------------------------------------ async queues (org.acc4j.runtime.async)

    @Override
    public void copyin(Object array, int queue) {
        withQueue("Acc.copyinAsync", array, queue, QueuedData::copyin, () -> copyin(array));
    }

    @Override
    public void create(Object array, int queue) {
        withQueue("Acc.createAsync", array, queue, QueuedData::create, () -> create(array));
    }

    @Override
    public void copyout(Object array, int queue) {
        withQueue("Acc.copyoutAsync", array, queue, QueuedData::copyout, () -> copyout(array));
    }

    @Override
    public void delete(Object array, int queue) {
        withQueue("Acc.deleteAsync", array, queue, QueuedData::delete, () -> delete(array));
    }

    @Override
    public void updateDevice(Object array, int queue) {
        withQueue("Acc.updateDeviceAsync", array, queue, QueuedData::updateDevice, () -> updateDevice(array));
    }

    @Override
    public void updateHost(Object array, int queue) {
        withQueue("Acc.updateHostAsync", array, queue, QueuedData::updateHost, () -> updateHost(array));
    }

    @Override
    public void waitQueue(int queue) {
        Acc.checkQueue("Acc.wait", queue);
        Gpu s = runtime.gpu();
        if (s != null && queue != Acc.ASYNC_SYNC) {
            s.run("Acc.wait(" + queue + ")", () -> {
                s.launcher.queues().finish(queue);
                return null;
            }, () -> null);
        }
    }

    @Override
    public void waitAsync(int[] queues, int queue) {
        Gpu s = runtime.gpu();
        if (s != null) {
            s.run("Acc.waitAsync(" + java.util.Arrays.toString(queues) + ", " + queue + ")", () -> {
                s.launcher.queues().waitOn(queues, queue);
                return null;
            }, () -> null);
        }
    }

    @Override
    public boolean asyncTest(int queue) {
        Acc.checkQueue("Acc.asyncTest", queue);
        Gpu s = runtime.gpu();
        return s == null || queue == Acc.ASYNC_SYNC
                || s.run("Acc.asyncTest(" + queue + ")", () -> s.launcher.queues().test(queue), () -> true);
    }

    @Override
    public boolean asyncTestAll() {
        Gpu s = runtime.gpu();
        return s == null || s.run("Acc.asyncTestAll", () -> s.launcher.queues().testAll(), () -> true);
    }

    /** A data routine on a queue; {@code ASYNC_SYNC} is the synchronous routine. */
    private void withQueue(String routine, Object array, int queue, QueueOp op, Runnable synchronous) {
        Acc.checkQueue(routine, queue);
        Gpu s = queue == Acc.ASYNC_SYNC ? null : runtime.gpu();
        // no queues without a device: the routine acts at once (the multicore target's counts); an array whose
        // device-side changes a fault lost goes to the synchronous routine, which refuses it (or forgets the loss
        // for Acc.deleteAsync); a lost device acts as on the host
        if (s == null || s.guard.lostArray(array) != null || s.run(routine + "(" + queue + ") of "
                + HostArrays.describe(array), () -> {
                    op.run(s.table, s.launcher.queues().get(queue), array);
                    s.launcher.dataQueued(array);
                    return false;
                }, () -> true)) {
            synchronous.run();
        }
    }

    /** One of {@link QueuedData}'s routines. */
    @FunctionalInterface
    private interface QueueOp {
        void run(PresentTable table, Queue queue, Object array);
    }
}
