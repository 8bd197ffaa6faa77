package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Writing staging memory back from the caches: available where the tests export {@code jdk.internal.misc} (the
 * build does, as the agent does) on an x86 processor, it leaves every byte as it was, and refuses a range outside
 * the buffer; staged copies with it move every element.
 */
class WritebackTest {

    @Test
    void writingBackKeepsEveryByteAndChecksItsRange() {
        boolean x86 = System.getProperty("os.arch").matches("amd64|x86_64");
        if (x86) {
            assertTrue(Writeback.available(), Writeback::missing);
            assertNull(Writeback.missing());
        }
        ByteBuffer memory = ByteBuffer.allocateDirect(1 << 20);
        byte[] bytes = new byte[1 << 20];
        new Random(12).nextBytes(bytes);
        memory.put(0, bytes);
        for (long[] range : new long[][] {{0, 1 << 20}, {1, 63}, {100, 1000}, {(1 << 20) - 1, 1}, {64, 0}}) {
            Writeback.range(memory, range[0], range[1]);
        }
        byte[] after = new byte[1 << 20];
        memory.get(0, after);
        assertArrayEquals(bytes, after);
        if (Writeback.available()) {
            assertThrows(IndexOutOfBoundsException.class, () -> Writeback.range(memory, 1, 1 << 20));
            assertThrows(IndexOutOfBoundsException.class, () -> Writeback.range(memory, -1, 8));
            assertThrows(IndexOutOfBoundsException.class, () -> Writeback.range(ByteBuffer.allocate(64), 0, 8));
        }
    }

    @Test
    void stagedCopiesThatWriteBackMoveEveryElement() {
        Random r = new Random(13);
        for (int threads : new int[] {1, 4}) {
            // every chunk written back, or those of at most 1000 bytes: the ramp's and the last ones
            StagedCopy.Settings s = new StagedCopy.Settings(0, 4096, 3, 1, 512, 4, 64).withThreads(threads)
                    .withFlushBytes(threads == 1 ? Long.MAX_VALUE : 1000).withInThreads(threads == 4 ? 3 : 0);
            FakeLanes lanes = new FakeLanes();
            try (StagedCopy<FakeDevice> staged = new StagedCopy<>(s, lanes)) {
                for (int length : new int[] {1, 511, 512, 513, 40_000 + r.nextInt(100)}) {
                    double[] a = (double[]) StagedCopyTest.random(double[].class, length, r);
                    FakeDevice.Bytes device = FakeDevice.bytes(8 * length);
                    assertTrue(staged.toDevice(a, device));
                    assertArrayEquals(StagedCopyTest.bytesOf(a), device.data.array(), threads + " threads, " + length);
                    double[] back = new double[length];
                    assertTrue(staged.toHost(device, back));
                    assertArrayEquals(a, back);
                }
            }
            assertTrue(lanes.violations.isEmpty(), lanes.violations::toString);
        }
    }
}
