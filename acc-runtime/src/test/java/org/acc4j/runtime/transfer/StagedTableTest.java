package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.acc4j.runtime.data.Buffer;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.DeviceMemory;
import org.acc4j.runtime.data.PresentTable;
import org.acc4j.runtime.transfer.StagedCopy.Settings;
import org.junit.jupiter.api.Test;

/**
 * The present table over memory whose copies are staged as {@code CudaMemory}'s are, on {@link FakeLanes}: a copy
 * that fails halfway leaves no entry that looks valid, and the table frees the staging at close and forgets it
 * when the context is rebuilt after a fault.
 */
class StagedTableTest {

    /** {@code CudaMemory}'s shape on a fake device: stage each array copy, or copy directly when declined. */
    private static final class StagedMemory implements DeviceMemory {
        final StagedCopy<FakeDevice> staging;
        final AtomicLong inUse = new AtomicLong();

        StagedMemory(FakeLanes lanes) {
            staging = new StagedCopy<>(new Settings(0, 64, 3, 2, 16, 4, 8), lanes);
        }

        @Override
        public Buffer allocate(Object hostArray) {
            return allocateRaw(StagedCopyTest.bytesOf(hostArray).length, "an array");
        }

        @Override
        public Buffer allocateRaw(long bytes, String what) {
            FakeDevice.Bytes device = FakeDevice.bytes((int) bytes);
            inUse.addAndGet(bytes);
            return new Buffer() {
                boolean closed;

                @Override
                public long bytes() {
                    return bytes;
                }

                @Override
                public long address() {
                    return 256;
                }

                @Override
                public void upload(Object hostArray) {
                    if (!staging.toDevice(hostArray, device)) {
                        device.data.put(0, StagedCopyTest.bytesOf(hostArray));
                    }
                }

                @Override
                public void download(Object hostArray) {
                    if (!staging.toHost(device, hostArray)) {
                        throw new AssertionError("declined");
                    }
                }

                @Override
                public void writeLongs(long[] values) {
                    device.data.asLongBuffer().put(0, values);
                }

                @Override
                public void zero() {
                    device.data.put(0, new byte[(int) bytes]);
                }

                @Override
                public void close() {
                    if (!closed) {
                        closed = true;
                        inUse.addAndGet(-bytes);
                    }
                }

                @Override
                public void abandon() {
                    close();
                }
            };
        }

        @Override
        public long bytesInUse() {
            return inUse.get();
        }

        @Override
        public void close() {
            staging.close();
        }

        @Override
        public void abandon() {
            staging.abandon();
        }
    }

    @Test
    void aCopyinThatFailsHalfwayLeavesNothingPresent() {
        FakeLanes lanes = new FakeLanes();
        StagedMemory memory = new StagedMemory(lanes);
        double[] a = (double[]) StagedCopyTest.random(double[].class, 100, new Random(1));
        try (PresentTable table = new PresentTable(memory)) {
            lanes.failCopy = 4;
            assertThrows(IllegalStateException.class, () -> table.enterDynamic(a, Clause.COPYIN));
            assertFalse(table.isPresent(a));
            assertEquals(0, memory.bytesInUse());

            lanes.failCopy = 0;
            table.enterDynamic(a, Clause.COPYIN);
            double[] keep = a.clone();
            java.util.Arrays.fill(a, 0);
            table.updateHost(a);
            assertArrayEquals(keep, a);
        }
        assertEquals(List.of(), lanes.violations);
    }

    @Test
    void anUpdateOrCopyoutThatFailsHalfwayThrowsAndARetryIsWhole() {
        FakeLanes lanes = new FakeLanes();
        StagedMemory memory = new StagedMemory(lanes);
        Random r = new Random(2);
        long[] a = (long[]) StagedCopyTest.random(long[].class, 100, r);
        try (PresentTable table = new PresentTable(memory)) {
            table.enterDynamic(a, Clause.COPYIN);
            long[] changed = (long[]) StagedCopyTest.random(long[].class, 100, r);
            System.arraycopy(changed, 0, a, 0, 100);
            lanes.refuseCopy = lanes.copies.get() + 3;
            assertThrows(IllegalStateException.class, () -> table.updateDevice(a));
            assertTrue(table.isPresent(a), "a present array stays present; its device copy is the host's to send again");
            lanes.refuseCopy = 0;
            table.updateDevice(a);
            java.util.Arrays.fill(a, 0);
            table.updateHost(a);
            assertArrayEquals(changed, a);

            lanes.failCopy = lanes.copies.get() + 2;
            assertThrows(IllegalStateException.class, () -> table.exitDynamic(a, Clause.COPYOUT, false));
            assertFalse(table.isPresent(a), "the copyout's entry is gone and its buffer freed");
            assertEquals(0, memory.bytesInUse());
        }
        assertEquals(List.of(), lanes.violations);
    }

    @Test
    void theTableFreesTheStagingAtCloseAndForgetsItAfterAFault() {
        FakeLanes lanes = new FakeLanes();
        StagedMemory memory = new StagedMemory(lanes);
        int[] a = new int[100];
        PresentTable table = new PresentTable(memory);
        table.enterDynamic(a, Clause.COPYIN);
        assertEquals(1, memory.staging.lanes());
        table.restore();
        assertTrue(lanes.opened.get(0).abandoned, "the context that held the staging is gone");
        assertEquals(2, lanes.opened.size(), "the restored array was staged through a new lane");
        table.lose();
        assertTrue(lanes.opened.get(1).abandoned);
        table.enterDynamic(a, Clause.COPYIN);
        table.close();
        assertTrue(lanes.opened.get(2).closed && !lanes.opened.get(2).abandoned, "freed at close");
        assertEquals(0, memory.staging.lanes());
    }
}
