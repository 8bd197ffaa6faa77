package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.acc4j.runtime.cuda.DeviceBuffer;
import org.junit.jupiter.api.Test;

/**
 * What {@link CudaMemory} does without touching the driver: argument checks and empty arrays
 * (a zero-byte buffer makes no CUDA call), so these run on machines without a GPU.
 */
class CudaMemoryTest {

    @Test
    void everyPrimitiveTypeIsTakenAndObjectArraysAreRejectedBeforeAnyCudaCall() {
        CudaMemory memory = new CudaMemory();
        for (Object empty : new Object[] {new boolean[0], new byte[0], new short[0], new char[0]}) {
            CudaMemory.CudaBuffer buffer = memory.allocate(empty);
            assertEquals(0L, buffer.bytes());
            buffer.upload(empty);
            buffer.download(empty);
            assertThrows(IllegalArgumentException.class, () -> buffer.upload(new int[0]), "another type");
            buffer.close();
        }
        assertThrows(IllegalArgumentException.class, () -> memory.allocate(new Integer[1]));
        assertEquals(0L, memory.bytesInUse());
    }

    @Test
    void emptyArraysNeedNoDeviceMemory() {
        CudaMemory memory = new CudaMemory();
        try (PresentTable table = new PresentTable(memory)) {
            double[] empty = {};
            table.enter(empty, Clause.COPY);
            DeviceBuffer buffer = CudaMemory.deviceBuffer(table.lookup(empty));
            assertEquals(0L, buffer.address());
            assertEquals(0L, buffer.bytes());
            assertEquals("double[0]", buffer.what());
            table.exit(empty, Clause.COPY);
            assertTrue(buffer.isClosed());
            assertArrayEquals(new double[0], empty);
            assertEquals(new TransferStats(1, 0, 1, 0, 1, 1), table.transferStats().withoutTimes());
        }
        assertEquals(0L, memory.bytesInUse());
    }

    @Test
    void buffersAreCheckedAgainstTheirArray() {
        CudaMemory memory = new CudaMemory();
        CudaMemory.CudaBuffer buffer = memory.allocate(new int[0]);
        assertThrows(IllegalArgumentException.class, () -> buffer.upload(new long[0]));
        assertThrows(IllegalArgumentException.class, () -> buffer.download(new int[1]));
        buffer.close();
        buffer.close();
        assertThrows(IllegalStateException.class, () -> buffer.deviceBuffer().address());
        assertThrows(IllegalArgumentException.class, () -> CudaMemory.deviceBuffer(new FakeMemory().allocate(new int[1])));
    }

    @Test
    void emptyRawBuffersAndRowTablesNeedNoDeviceMemory() {
        CudaMemory memory = new CudaMemory();
        CudaMemory.CudaBuffer raw = memory.allocateRaw(0, "an empty row table");
        assertEquals(0L, raw.address());
        raw.writeLongs(new long[0]);
        assertThrows(IllegalArgumentException.class, () -> raw.writeLongs(new long[1]));
        assertThrows(IllegalArgumentException.class, () -> raw.upload(new long[0]), "a raw buffer takes no host array");
        assertThrows(IllegalArgumentException.class, () -> memory.allocateRaw(-1, "nothing"));
        raw.close();
        try (PresentTable table = new PresentTable(memory)) {
            double[][] none = new double[0][];
            table.enter(none, Clause.COPY);
            assertEquals("double[0][] row table", CudaMemory.deviceBuffer(table.lookup(none)).what());
            table.exit(none, Clause.COPY);
            assertEquals(new TransferStats(1, 0, 0, 0, 1, 1), table.transferStats().withoutTimes());
        }
        assertEquals(0L, memory.bytesInUse());
    }
}
