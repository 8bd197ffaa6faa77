package org.acc4j.runtime.data;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Device memory simulated on the heap: each buffer keeps its own copy of the data, so tests
 * can tell what reached the "device" and what came back. Counts every operation and records
 * misuse (use after close, closing twice) in {@link #violations()} instead of trusting the
 * code under test. Never references the host arrays it was allocated for.
 */
final class FakeMemory implements DeviceMemory {

    /** A fake buffer holding a private array of the host array's type and length. */
    final class FakeBuffer implements Buffer {

        private final Object data;
        private boolean closed;

        private FakeBuffer(Object data) {
            this.data = data;
        }

        @Override
        public long bytes() {
            return HostArrays.byteSize(data);
        }

        @Override
        public void upload(Object hostArray) {
            synchronized (FakeMemory.this) {
                use("upload", hostArray);
                if (failUploads) {
                    throw new IllegalStateException("simulated upload failure");
                }
                System.arraycopy(hostArray, 0, data, 0, Array.getLength(data));
                uploads++;
            }
        }

        @Override
        public void download(Object hostArray) {
            synchronized (FakeMemory.this) {
                use("download", hostArray);
                System.arraycopy(data, 0, hostArray, 0, Array.getLength(data));
                downloads++;
            }
        }

        @Override
        public void zero() {
            synchronized (FakeMemory.this) {
                use("zero", data);
                // a fresh array of the same type is all zero
                Object zeros = Array.newInstance(data.getClass().getComponentType(), Array.getLength(data));
                System.arraycopy(zeros, 0, data, 0, Array.getLength(data));
                zeroFills++;
            }
        }

        @Override
        public void close() {
            synchronized (FakeMemory.this) {
                if (closed) {
                    violations.add("double free of " + HostArrays.describe(data));
                    return;
                }
                closed = true;
                live--;
                frees++;
                bytesInUse -= bytes();
            }
        }

        /** A copy of what the device holds. */
        Object contents() {
            synchronized (FakeMemory.this) {
                use("inspect", data);
                Object copy = Array.newInstance(data.getClass().getComponentType(), Array.getLength(data));
                System.arraycopy(data, 0, copy, 0, Array.getLength(data));
                return copy;
            }
        }

        /** Lets a test play kernel: {@code body} edits the device data in place. */
        void kernel(Consumer<Object> body) {
            synchronized (FakeMemory.this) {
                use("kernel", data);
                body.accept(data);
            }
        }

        boolean isClosed() {
            synchronized (FakeMemory.this) {
                return closed;
            }
        }

        private void use(String operation, Object hostArray) {
            if (closed) {
                violations.add(operation + " after close of " + HostArrays.describe(data));
                throw new IllegalStateException(operation + " after close");
            }
            if (hostArray.getClass() != data.getClass() || Array.getLength(hostArray) != Array.getLength(data)) {
                violations.add(operation + " with " + HostArrays.describe(hostArray) + " on a buffer for "
                        + HostArrays.describe(data));
                throw new IllegalArgumentException("mismatched array");
            }
        }
    }

    private final List<String> violations = new ArrayList<>();
    private int allocations;
    private int frees;
    private int live;
    private int uploads;
    private int downloads;
    private int zeroFills;
    private long bytesInUse;
    private boolean failUploads;

    @Override
    public synchronized FakeBuffer allocate(Object hostArray) {
        HostArrays.require(hostArray);
        Object data = Array.newInstance(hostArray.getClass().getComponentType(), Array.getLength(hostArray));
        // poison the fresh buffer so a missing zero-fill or upload shows
        if (data instanceof int[] ints) {
            java.util.Arrays.fill(ints, 0xDEAD);
        } else if (data instanceof double[] doubles) {
            java.util.Arrays.fill(doubles, Double.NaN);
        }
        allocations++;
        live++;
        bytesInUse += HostArrays.byteSize(hostArray);
        return new FakeBuffer(data);
    }

    @Override
    public synchronized long bytesInUse() {
        return bytesInUse;
    }

    synchronized void failUploads(boolean fail) {
        failUploads = fail;
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    synchronized int allocations() {
        return allocations;
    }

    synchronized int frees() {
        return frees;
    }

    synchronized int live() {
        return live;
    }

    synchronized int uploads() {
        return uploads;
    }

    synchronized int downloads() {
        return downloads;
    }

    synchronized int zeroFills() {
        return zeroFills;
    }
}
