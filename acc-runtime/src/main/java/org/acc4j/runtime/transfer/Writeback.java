package org.acc4j.runtime.transfer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;

/**
 * Writes ranges of host memory back from the processor's caches ({@code CLWB}, else {@code CLFLUSHOPT} or
 * {@code CLFLUSH} on x86), through the JDK's {@code jdk.internal.misc.Unsafe.writebackMemory}: a staging slot the
 * host has just written is otherwise read by the device's DMA out of the writing cores' caches, line by line, which
 * on the H100 machine held a slot's copy to the device at 17-22 GB/s where the same copy of a slot the host had not
 * just written ran at 40-50. Needs {@code java.base} to export {@code jdk.internal.misc} to this code (the agent
 * does so; elsewhere {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}) and a JVM that can write lines
 * back; where either is missing, {@link #available()} is false and {@link #range} does nothing. Thread-safe.
 */
final class Writeback {
    /** {@code writebackMemory(long address, long bytes)} bound to the JDK's unsafe, or null. */
    private static final MethodHandle WRITEBACK;
    /** Why {@link #WRITEBACK} is null, or null. */
    private static final String MISSING;

    static {
        MethodHandle h = null;
        String missing = null;
        try {
            Class<?> unsafe = Class.forName("jdk.internal.misc.Unsafe");
            if (!HostCopy.available().contains(HostCopy.UNSAFE)) {
                missing = "no sun.misc.Unsafe to find a direct buffer's address with";
            } else if (!unsafe.getModule().isExported("jdk.internal.misc", Writeback.class.getModule())) {
                missing = "java.base does not export jdk.internal.misc here";
            } else if (!(Boolean) unsafe.getMethod("isWritebackEnabled").invoke(null)) {
                missing = "the JVM cannot write cache lines back on this processor";
            } else {
                Object instance = unsafe.getMethod("getUnsafe").invoke(null);
                h = MethodHandles.lookup().findVirtual(unsafe, "writebackMemory",
                        MethodType.methodType(void.class, long.class, long.class)).bindTo(instance);
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            missing = "no jdk.internal.misc.Unsafe.writebackMemory (" + e + ")";
            h = null;
        }
        WRITEBACK = h;
        MISSING = missing;
    }

    private Writeback() {
    }

    /** Whether {@link #range} writes lines back. */
    static boolean available() {
        return WRITEBACK != null;
    }

    /** Why {@link #range} does nothing, or null where it works. */
    static String missing() {
        return MISSING;
    }

    /** Writes bytes {@code [at, at + bytes)} of direct buffer {@code memory} back to memory; nothing if unavailable. */
    static void range(ByteBuffer memory, long at, long bytes) {
        if (WRITEBACK == null || bytes <= 0) {
            return;
        }
        if (!memory.isDirect() || at < 0 || at + bytes > memory.capacity()) {
            throw new IndexOutOfBoundsException(bytes + " bytes at " + at + " of " + memory);
        }
        try {
            WRITEBACK.invokeExact(HostCopy.address(memory) + at, bytes);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("writing back " + bytes + " bytes", t);
        }
    }
}
