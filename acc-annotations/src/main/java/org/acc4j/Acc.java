package org.acc4j;

import java.util.Objects;
import org.acc4j.spi.Backend;

/**
 * OpenACC's runtime routines in Java form.
 *
 * <p>Without {@code -javaagent:acc.jar} every routine has the semantics of OpenACC's host device: data is in
 * shared memory, so it is always present and transfers do nothing. A program compiled against these
 * routines therefore runs unchanged as plain Java. With the agent the same calls reach the GPU runtime.
 *
 * <p>Every routine that takes an array accepts a primitive array of one or two dimensions; a {@code null} throws
 * {@link NullPointerException} and anything else {@link IllegalArgumentException}, with or without a
 * device. A {@code double[][]} (any primitive element) given alone to a routine that takes several arrays, as in
 * {@code Acc.copyin(grid)}, is that one two-dimensional array (its rows travel with it), never a list of its rows.
 *
 * <p><b>Async queues</b> (OpenACC's {@code async} and {@code wait}). The {@code ...Async} routines and {@code
 * @Kernels(async = ...)} put work on a numbered queue and return at once; with the agent on a GPU each queue is a
 * CUDA stream. Work on one queue runs in the order it was queued; different queues run side by side, with no order
 * between them. {@link #wait(int)} joins one queue, {@link #waitAll()} every queue, {@link #asyncTest(int)} and
 * {@link #asyncTestAll()} ask without waiting. Queue numbers are 0 or more, or {@link #ASYNC_NOVAL} (OpenACC's
 * {@code acc_async_noval}: a default queue of its own) or {@link #ASYNC_SYNC} (no queue: the routine is the
 * synchronous one); any other negative number throws {@link IllegalArgumentException}, with or without a device.
 * <ul>
 *   <li>What the host may touch before the wait: an array given to {@link #updateDeviceAsync} or
 *       {@link #copyinAsync} was copied (staged into pinned memory) when the routine was called, so the host may
 *       overwrite it at once. An array given to {@link #updateHostAsync} or {@link #copyoutAsync}, and an array an
 *       async {@code @Kernels} call writes, keeps its old host values until the wait ({@link #wait(int)} of its
 *       queue, {@link #waitAll()}, or an {@link #asyncTest} that returns true), which writes the device's values
 *       into it: the host must not write it meanwhile (its writes would be overwritten) and reads old values.</li>
 *   <li>Synchronous work after async work: every synchronous routine, {@code @Kernels} call and {@code @Data}
 *       region first waits for all queues, so it sees every queued result.</li>
 *   <li>Errors: an exception a queued kernel raises ({@code ArrayIndexOutOfBoundsException}, {@code
 *       ArithmeticException}) is thrown by the first wait that finds it ({@link #wait(int)}, {@link #waitAll()},
 *       {@link #asyncTest}, or the synchronous call that waits first); nothing that kernel wrote is copied back,
 *       and neither is anything queued after it on its queue.</li>
 * </ul>
 * Without the agent (OpenACC's host device) every routine is complete when it returns, so the async routines are
 * the synchronous ones, {@code wait} returns at once and {@code asyncTest} is true.
 */
public final class Acc {
    /** OpenACC's {@code acc_async_sync}: no queue, the work is done when the call returns. The default of {@link Kernels#async()}. */
    public static final int ASYNC_SYNC = -2;

    /** OpenACC's {@code acc_async_noval}: the default queue, a queue of its own apart from those numbered 0 and up. */
    public static final int ASYNC_NOVAL = -1;

    private static volatile Backend backend = new HostBackend();

    private Acc() {
    }

    /** Initialises the runtime (device discovery and context); optional, the first offload does it too. */
    public static void init() {
        backend.init();
    }

    /** Frees every device buffer and releases the device; later calls start the runtime again. */
    public static void shutdown() {
        backend.shutdown();
    }

    /** The number of GPUs the runtime can use: 0 without the agent or without a device. */
    public static int deviceCount() {
        return backend.deviceCount();
    }

    /**
     * Whether offloaded regions run on a GPU (false on the host path). Inside a loop nest compiled as a kernel this
     * is the constant true, so a branch on it keeps the nest on the device.
     */
    public static boolean onDevice() {
        return backend.onDevice();
    }

    /** The backend's name for messages: "host" or the GPU's name. */
    public static String deviceName() {
        return backend.name();
    }

    /** Enter data: copies each array to the device unless present; raises its dynamic reference count. */
    public static void copyin(Object... arrays) {
        for (Object a : given(arrays)) {
            backend.copyin(checkArray(a));
        }
    }

    /** Enter data: allocates each array on the device unless present; raises its dynamic reference count. */
    public static void create(Object... arrays) {
        for (Object a : given(arrays)) {
            backend.create(checkArray(a));
        }
    }

    /** Exit data: lowers the dynamic count; at zero (and no structured reference) copies back and frees. */
    public static void copyout(Object... arrays) {
        for (Object a : given(arrays)) {
            backend.copyout(checkArray(a));
        }
    }

    /** Exit data: lowers the dynamic count; at zero (and no structured reference) frees without copying. */
    public static void delete(Object... arrays) {
        for (Object a : given(arrays)) {
            backend.delete(checkArray(a));
        }
    }

    /** Copies each present array from the host to the device; an error if it is not present. */
    public static void updateDevice(Object... arrays) {
        for (Object a : given(arrays)) {
            backend.updateDevice(checkArray(a));
        }
    }

    /** Copies each present array from the device to the host; an error if it is not present. */
    public static void updateHost(Object... arrays) {
        for (Object a : given(arrays)) {
            backend.updateHost(checkArray(a));
        }
    }

    /** Whether the array has a device copy (always true on the host device, where memory is shared). */
    public static boolean isPresent(Object array) {
        return backend.isPresent(checkArray(array));
    }

    /** Enter data on {@code queue} ({@link #copyin} queued); the arrays are staged at the call, see the class comment. */
    public static void copyinAsync(int queue, Object... arrays) {
        checkQueue("Acc.copyinAsync", queue);
        for (Object a : given(arrays)) {
            Object checked = checkArray(a);
            if (queue == ASYNC_SYNC) {
                backend.copyin(checked);
            } else {
                backend.copyin(checked, queue);
            }
        }
    }

    /** Enter data on {@code queue} ({@link #create} queued). */
    public static void createAsync(int queue, Object... arrays) {
        checkQueue("Acc.createAsync", queue);
        for (Object a : given(arrays)) {
            Object checked = checkArray(a);
            if (queue == ASYNC_SYNC) {
                backend.create(checked);
            } else {
                backend.create(checked, queue);
            }
        }
    }

    /** Exit data on {@code queue} ({@link #copyout} queued); the host arrays get the device's values at the wait. */
    public static void copyoutAsync(int queue, Object... arrays) {
        checkQueue("Acc.copyoutAsync", queue);
        for (Object a : given(arrays)) {
            Object checked = checkArray(a);
            if (queue == ASYNC_SYNC) {
                backend.copyout(checked);
            } else {
                backend.copyout(checked, queue);
            }
        }
    }

    /** Exit data on {@code queue} ({@link #delete} queued): the device copies are freed after the queue's earlier work. */
    public static void deleteAsync(int queue, Object... arrays) {
        checkQueue("Acc.deleteAsync", queue);
        for (Object a : given(arrays)) {
            Object checked = checkArray(a);
            if (queue == ASYNC_SYNC) {
                backend.delete(checked);
            } else {
                backend.delete(checked, queue);
            }
        }
    }

    /**
     * Copies each present array to the device on {@code queue} ({@link #updateDevice} queued); the host's values
     * are staged at the call, so the host may change the arrays at once.
     */
    public static void updateDeviceAsync(int queue, Object... arrays) {
        checkQueue("Acc.updateDeviceAsync", queue);
        for (Object a : given(arrays)) {
            Object checked = checkArray(a);
            if (queue == ASYNC_SYNC) {
                backend.updateDevice(checked);
            } else {
                backend.updateDevice(checked, queue);
            }
        }
    }

    /**
     * Copies each present array to the host on {@code queue} ({@link #updateHost} queued); the host arrays hold
     * their old values until the wait.
     */
    public static void updateHostAsync(int queue, Object... arrays) {
        checkQueue("Acc.updateHostAsync", queue);
        for (Object a : given(arrays)) {
            Object checked = checkArray(a);
            if (queue == ASYNC_SYNC) {
                backend.updateHost(checked);
            } else {
                backend.updateHost(checked, queue);
            }
        }
    }

    /**
     * Waits for the work on {@code queue} (OpenACC's {@code acc_wait}): afterwards the host arrays its copies and
     * kernels write hold the device's values. Throws the exception of a kernel of the queue that failed. A queue
     * with no work, and {@link #ASYNC_SYNC}, return at once.
     */
    public static void wait(int queue) {
        checkQueue("Acc.wait", queue);
        if (queue != ASYNC_SYNC) {
            backend.waitQueue(queue);
        }
    }

    /**
     * Makes the work queued on {@code queue} from now on wait for the work queued so far on each of {@code queues}
     * (OpenACC's {@code acc_wait_async}, and {@code wait(queues) async(queue)}), without the host waiting: on a GPU,
     * an event recorded on each of those queues that {@code queue}'s stream waits for. A wait for {@code queue} then
     * also joins what it waited on: the arrays that work copies back reach the host, and a kernel of it that failed
     * throws there too. {@link #ASYNC_SYNC} as {@code queue} makes the host wait for each of {@code queues} instead,
     * as {@link #wait(int)}. Without the agent every routine is complete when it returns, so this does nothing.
     *
     * @throws IllegalArgumentException when a number is not a queue (see {@link #checkQueue}); {@code queues} holds
     *                                  no {@link #ASYNC_SYNC}
     */
    public static void waitAsync(int[] queues, int queue) {
        Objects.requireNonNull(queues, "queues");
        checkQueue("Acc.waitAsync", queue);
        for (int q : queues) {
            checkQueue("Acc.waitAsync", q);
            if (q == ASYNC_SYNC) {
                throw new IllegalArgumentException("acc4j: Acc.waitAsync: Acc.ASYNC_SYNC (" + ASYNC_SYNC + ") names no"
                        + " queue to wait for");
            }
        }
        if (queue == ASYNC_SYNC) {
            for (int q : queues) {
                backend.waitQueue(q);
            }
        } else if (queues.length > 0) {
            backend.waitAsync(queues.clone(), queue);
        }
    }

    /** Waits for every queue and all other device work ({@code acc_wait_all}), as {@link #wait(int)} does for one. */
    public static void waitAll() {
        backend.waitAll();
    }

    /**
     * Whether the work on {@code queue} has completed ({@code acc_async_test}), without waiting. When it returns
     * true the queue was joined as by {@link #wait(int)} (its results are in the host arrays), so it may throw a
     * failed kernel's exception. True for a queue with no work and for {@link #ASYNC_SYNC}.
     */
    public static boolean asyncTest(int queue) {
        checkQueue("Acc.asyncTest", queue);
        return queue == ASYNC_SYNC || backend.asyncTest(queue);
    }

    /** Whether the work on every queue has completed ({@code acc_async_test_all}), as {@link #asyncTest(int)} for each. */
    public static boolean asyncTestAll() {
        return backend.asyncTestAll();
    }

    /**
     * Checks a queue number: 0 or more, {@link #ASYNC_NOVAL} or {@link #ASYNC_SYNC}.
     *
     * @param routine the routine's name for the message, e.g. {@code Acc.wait}
     * @throws IllegalArgumentException for any other number
     */
    public static void checkQueue(String routine, int queue) {
        if (queue < 0 && queue != ASYNC_NOVAL && queue != ASYNC_SYNC) {
            throw new IllegalArgumentException("acc4j: " + routine + ": " + queue + " is not a queue: use 0 or more,"
                    + " Acc.ASYNC_NOVAL (" + ASYNC_NOVAL + ", the default queue) or Acc.ASYNC_SYNC (" + ASYNC_SYNC
                    + ", synchronous)");
        }
    }

    // ------------------------------------------------------------------ devices

    /**
     * The number of the device in use, 0 for the first (OpenACC's {@code acc_get_device_num}); 0 without the agent
     * or a GPU. {@code ACC_DEVICE_NUM} chooses it at start-up.
     */
    public static int getDeviceNumber() {
        return backend.deviceNumber();
    }

    /**
     * Uses device {@code number} from now on (OpenACC's {@code acc_set_device_num}); the same device does nothing.
     * Switching needs the runtime idle: nothing present and nothing allocated by {@link #malloc} on the current
     * device, and no queue busy ({@link IllegalStateException} otherwise, naming what is there), since data on one
     * GPU is not reachable from another.
     *
     * @throws IllegalArgumentException when {@code number} is negative or beyond the devices there are
     */
    public static void setDeviceNumber(int number) {
        if (number < 0) {
            throw new IllegalArgumentException("acc4j: Acc.setDeviceNumber(" + number + "): device numbers are 0 or more");
        }
        backend.deviceNumber(number);
    }

    /** The properties of the device in use (OpenACC's {@code acc_get_property}); the host's without a GPU. */
    public static DeviceProperties deviceProperties() {
        return backend.properties(backend.deviceNumber());
    }

    /**
     * The properties of device {@code number}.
     *
     * @throws IllegalArgumentException when {@code number} is negative or beyond the devices there are
     */
    public static DeviceProperties deviceProperties(int number) {
        if (number < 0) {
            throw new IllegalArgumentException("acc4j: Acc.deviceProperties(" + number + "): device numbers are 0 or more");
        }
        return backend.properties(number);
    }

    // ------------------------------------------------------------------ raw device memory

    /**
     * Allocates {@code bytes} of memory on the device in use (OpenACC's {@code acc_malloc}) and returns its address,
     * for code that launches its own kernels (JCuda, for example). It is not cleared. {@link #free} gives it back;
     * {@link #shutdown()} frees what is left. 0 bytes, or no device (without the agent or a GPU), give 0, like a
     * C null pointer.
     *
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public static long malloc(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("acc4j: Acc.malloc(" + bytes + "): a size is 0 or more");
        }
        return backend.malloc(bytes);
    }

    /**
     * Frees memory {@link #malloc} gave (OpenACC's {@code acc_free}); 0 does nothing.
     *
     * @throws IllegalArgumentException when {@code address} is not one {@link #malloc} gave and not yet freed
     */
    public static void free(long address) {
        backend.free(address);
    }

    /**
     * The device address of {@code array}'s copy (OpenACC's {@code acc_deviceptr}): for a two-dimensional array, its
     * row table (16 bytes per row: the row's address, its length as a 32-bit int, 4 bytes of padding). 0 when the
     * array is not present, and always without a device. The address is valid while the array stays present.
     */
    public static long deviceptr(Object array) {
        return backend.deviceptr(checkArray(array));
    }

    /**
     * The host array whose device copy starts at {@code address} (OpenACC's {@code acc_hostptr}), the inverse of
     * {@link #deviceptr}: {@code Acc.hostptr(Acc.deviceptr(a)) == a} for every present array {@code a} of length 1
     * or more (a two-dimensional array is found by its row table's address). Java has no pointers into the middle of
     * an array, so only the start of a copy is accepted.
     *
     * @throws IllegalArgumentException when no present array's copy starts at {@code address} (saying which copy
     *                                  it falls inside, if any), and always without a device, where arrays have no
     *                                  device copies
     */
    public static Object hostptr(long address) {
        return backend.hostptr(address);
    }

    /** {@link #copyout} with OpenACC's {@code finalize}: the dynamic reference count drops to zero at once. */
    public static void copyoutFinalize(Object... arrays) {
        for (Object a : given(arrays)) {
            backend.copyoutFinalize(checkArray(a));
        }
    }

    /** {@link #delete} with OpenACC's {@code finalize}: the dynamic reference count drops to zero at once. */
    public static void deleteFinalize(Object... arrays) {
        for (Object a : given(arrays)) {
            backend.deleteFinalize(checkArray(a));
        }
    }

    /**
     * The time profile so far (regions, kernels, transfers, compile times; see the user guide, docs/guide.md), as text
     * in the style of PGI's {@code -Minfo=time}. It prints nothing: print or log the text yourself. With profiling
     * off ({@code -Dacc4j.profile=true} or {@code ACC4J_PROFILE=1} turns it on), or without the agent, the text is
     * one line saying there is no profile, and why.
     */
    public static String report() {
        return backend.report();
    }

    // ---- atomics. Inside a @Kernels nest the compiler turns these calls into the device's atomic instructions
    // (a call whose result is unused into a reduction instruction); the dependence test lets atomic updates of an
    // array from different iterations run in parallel. Elsewhere they are VarHandle's array-element atomics.

    /** Atomically adds {@code value} to {@code a[index]} and returns the old value, as {@code VarHandle.getAndAdd}. */
    public static int atomicAdd(int[] a, int index, int value) {
        return (int) Atomics.INT.getAndAdd(a, index, value);
    }

    /** Atomically adds {@code value} to {@code a[index]} and returns the old value, as {@code VarHandle.getAndAdd}. */
    public static long atomicAdd(long[] a, int index, long value) {
        return (long) Atomics.LONG.getAndAdd(a, index, value);
    }

    /** Atomically adds {@code value} to {@code a[index]} and returns the old value, as {@code VarHandle.getAndAdd}. */
    public static float atomicAdd(float[] a, int index, float value) {
        return (float) Atomics.FLOAT.getAndAdd(a, index, value);
    }

    /** Atomically adds {@code value} to {@code a[index]} and returns the old value, as {@code VarHandle.getAndAdd}. */
    public static double atomicAdd(double[] a, int index, double value) {
        return (double) Atomics.DOUBLE.getAndAdd(a, index, value);
    }

    /**
     * Atomically sets {@code a[index]} to {@code Math.min(a[index], value)} and returns the old value: a NaN on either
     * side wins, and {@code -0.0} is smaller than {@code 0.0}.
     */
    public static float atomicMin(float[] a, int index, float value) {
        return Atomics.min(a, index, value);
    }

    /**
     * Atomically sets {@code a[index]} to {@code Math.max(a[index], value)} and returns the old value: a NaN on either
     * side wins, and {@code 0.0} is larger than {@code -0.0}.
     */
    public static float atomicMax(float[] a, int index, float value) {
        return Atomics.max(a, index, value);
    }

    /**
     * Atomically sets {@code a[index]} to {@code Math.min(a[index], value)} and returns the old value: a NaN on either
     * side wins, and {@code -0.0} is smaller than {@code 0.0}.
     */
    public static double atomicMin(double[] a, int index, double value) {
        return Atomics.min(a, index, value);
    }

    /**
     * Atomically sets {@code a[index]} to {@code Math.max(a[index], value)} and returns the old value: a NaN on either
     * side wins, and {@code 0.0} is larger than {@code -0.0}.
     */
    public static double atomicMax(double[] a, int index, double value) {
        return Atomics.max(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code Math.min(a[index], value)} and returns the old value. */
    public static int atomicMin(int[] a, int index, int value) {
        return Atomics.min(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code Math.max(a[index], value)} and returns the old value. */
    public static int atomicMax(int[] a, int index, int value) {
        return Atomics.max(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code a[index] & value} and returns the old value, as {@code VarHandle.getAndBitwiseAnd}. */
    public static int atomicAnd(int[] a, int index, int value) {
        return (int) Atomics.INT.getAndBitwiseAnd(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code a[index] | value} and returns the old value, as {@code VarHandle.getAndBitwiseOr}. */
    public static int atomicOr(int[] a, int index, int value) {
        return (int) Atomics.INT.getAndBitwiseOr(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code a[index] ^ value} and returns the old value, as {@code VarHandle.getAndBitwiseXor}. */
    public static int atomicXor(int[] a, int index, int value) {
        return (int) Atomics.INT.getAndBitwiseXor(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code Math.min(a[index], value)} and returns the old value. */
    public static long atomicMin(long[] a, int index, long value) {
        return Atomics.min(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code Math.max(a[index], value)} and returns the old value. */
    public static long atomicMax(long[] a, int index, long value) {
        return Atomics.max(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code a[index] & value} and returns the old value, as {@code VarHandle.getAndBitwiseAnd}. */
    public static long atomicAnd(long[] a, int index, long value) {
        return (long) Atomics.LONG.getAndBitwiseAnd(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code a[index] | value} and returns the old value, as {@code VarHandle.getAndBitwiseOr}. */
    public static long atomicOr(long[] a, int index, long value) {
        return (long) Atomics.LONG.getAndBitwiseOr(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code a[index] ^ value} and returns the old value, as {@code VarHandle.getAndBitwiseXor}. */
    public static long atomicXor(long[] a, int index, long value) {
        return (long) Atomics.LONG.getAndBitwiseXor(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code value} and returns the old value, as {@code VarHandle.getAndSet}. */
    public static int atomicExchange(int[] a, int index, int value) {
        return (int) Atomics.INT.getAndSet(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code value} and returns the old value, as {@code VarHandle.getAndSet}. */
    public static long atomicExchange(long[] a, int index, long value) {
        return (long) Atomics.LONG.getAndSet(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code value} and returns the old value, as {@code VarHandle.getAndSet}. */
    public static float atomicExchange(float[] a, int index, float value) {
        return (float) Atomics.FLOAT.getAndSet(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code value} and returns the old value, as {@code VarHandle.getAndSet}. */
    public static double atomicExchange(double[] a, int index, double value) {
        return (double) Atomics.DOUBLE.getAndSet(a, index, value);
    }

    /** Atomically sets {@code a[index]} to {@code value} if it is {@code expected}, as {@code VarHandle.compareAndSet}; whether it did. */
    public static boolean atomicCompareAndSet(int[] a, int index, int expected, int value) {
        return Atomics.INT.compareAndSet(a, index, expected, value);
    }

    /** Atomically sets {@code a[index]} to {@code value} if it is {@code expected}, as {@code VarHandle.compareAndSet}; whether it did. */
    public static boolean atomicCompareAndSet(long[] a, int index, long expected, long value) {
        return Atomics.LONG.compareAndSet(a, index, expected, value);
    }

    /** Atomically sets {@code a[index]} to {@code value} if it is {@code expected}, as {@code VarHandle.compareAndSet}; whether it did. The values are compared as their raw bits ({@code floatToRawIntBits}), as {@code VarHandle} does. */
    public static boolean atomicCompareAndSet(float[] a, int index, float expected, float value) {
        return Atomics.FLOAT.compareAndSet(a, index, expected, value);
    }

    /** Atomically sets {@code a[index]} to {@code value} if it is {@code expected}, as {@code VarHandle.compareAndSet}; whether it did. The values are compared as their raw bits ({@code doubleToRawLongBits}), as {@code VarHandle} does. */
    public static boolean atomicCompareAndSet(double[] a, int index, double expected, double value) {
        return Atomics.DOUBLE.compareAndSet(a, index, expected, value);
    }

    /** Reads {@code a[index]} atomically, as {@code VarHandle.getVolatile}. */
    public static int atomicRead(int[] a, int index) {
        return (int) Atomics.INT.getVolatile(a, index);
    }

    /** Reads {@code a[index]} atomically, as {@code VarHandle.getVolatile}. */
    public static long atomicRead(long[] a, int index) {
        return (long) Atomics.LONG.getVolatile(a, index);
    }

    /** Reads {@code a[index]} atomically, as {@code VarHandle.getVolatile}. */
    public static float atomicRead(float[] a, int index) {
        return (float) Atomics.FLOAT.getVolatile(a, index);
    }

    /** Reads {@code a[index]} atomically, as {@code VarHandle.getVolatile}. */
    public static double atomicRead(double[] a, int index) {
        return (double) Atomics.DOUBLE.getVolatile(a, index);
    }

    /** Writes {@code a[index]} atomically, as {@code VarHandle.setVolatile}. */
    public static void atomicWrite(int[] a, int index, int value) {
        Atomics.INT.setVolatile(a, index, value);
    }

    /** Writes {@code a[index]} atomically, as {@code VarHandle.setVolatile}. */
    public static void atomicWrite(long[] a, int index, long value) {
        Atomics.LONG.setVolatile(a, index, value);
    }

    /** Writes {@code a[index]} atomically, as {@code VarHandle.setVolatile}. */
    public static void atomicWrite(float[] a, int index, float value) {
        Atomics.FLOAT.setVolatile(a, index, value);
    }

    /** Writes {@code a[index]} atomically, as {@code VarHandle.setVolatile}. */
    public static void atomicWrite(double[] a, int index, double value) {
        Atomics.DOUBLE.setVolatile(a, index, value);
    }

    /**
     * Installs the runtime behind these routines. Called by the agent at start-up; not for applications.
     *
     * @return the backend that was installed before
     */
    public static Backend install(Backend runtime) {
        Backend old = backend;
        backend = Objects.requireNonNull(runtime, "runtime");
        return old;
    }

    /**
     * The arrays a data routine was given. A two-dimensional primitive array passed alone ({@code Acc.copyin(grid)}
     * with {@code double[][] grid}) reaches a varargs routine as the varargs array itself, since a {@code double[][]}
     * is an {@code Object[]}: it means that one two-dimensional array, never its rows one by one. Arrays listed with
     * others ({@code Acc.copyin(grid, x)}) arrive in an {@code Object[]} and are taken as listed.
     */
    static Object[] given(Object[] arrays) {
        Class<?> c = arrays.getClass().getComponentType();
        return c.isArray() && c.getComponentType().isPrimitive() ? new Object[] {arrays} : arrays;
    }

    static Object checkArray(Object a) {
        Objects.requireNonNull(a, "array");
        Class<?> c = a.getClass();
        boolean rank1 = c.isArray() && c.getComponentType().isPrimitive();
        boolean rank2 = c.isArray() && c.getComponentType().isArray() && c.getComponentType().getComponentType().isPrimitive();
        if (!rank1 && !rank2) {
            throw new IllegalArgumentException("acc4j: expected a primitive array of one or two dimensions, got "
                    + c.getTypeName());
        }
        return a;
    }

    /** OpenACC's host device: shared memory, so every routine is trivially satisfied. */
    private static final class HostBackend implements Backend {
        @Override public String name() { return "host"; }
        @Override public void init() { }
        @Override public void shutdown() { }
        @Override public int deviceCount() { return 0; }
        @Override public boolean onDevice() { return false; }
        @Override public void copyin(Object array) { }
        @Override public void create(Object array) { }
        @Override public void copyout(Object array) { }
        @Override public void delete(Object array) { }
        @Override public void updateDevice(Object array) { }
        @Override public void updateHost(Object array) { }
        @Override public boolean isPresent(Object array) { return true; }
        @Override public void waitAll() { }
        @Override public String report() {
            return "acc4j: no profile is available: running without the acc4j agent, every region runs as plain Java\n";
        }
    }
}
