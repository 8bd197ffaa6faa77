package org.acc4j.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** How pinned staging lays out arrays, without pinning memory: booleans are the bytes 0 and 1. */
class PinnedBufferBooleansTest {
    @Test
    void booleansStageAsZeroAndOneBytesAndAnyOtherByteReadsAsTrue() {
        boolean[] z = {true, false, false, true, true};
        ByteBuffer b = ByteBuffer.allocate(3);
        PinnedBuffer.moveBooleans(b, z, 1, 3, true);
        assertArrayEquals(new byte[] {0, 0, 1}, b.array());
        b.put(0, (byte) 2);
        b.put(1, (byte) -1);
        b.put(2, (byte) 0);
        boolean[] back = new boolean[5];
        PinnedBuffer.moveBooleans(b, back, 2, 3, false);
        assertArrayEquals(new boolean[] {false, false, true, true, false}, back);
    }

    @Test
    void everyPrimitiveArrayHasItsDeviceWidth() {
        assertEquals(1, PinnedBuffer.width(new boolean[1]));
        assertEquals(1, PinnedBuffer.width(new byte[1]));
        assertEquals(2, PinnedBuffer.width(new short[1]));
        assertEquals(2, PinnedBuffer.width(new char[1]));
        assertEquals(4, PinnedBuffer.width(new int[1]));
        assertEquals(8, PinnedBuffer.width(new double[1]));
        assertThrows(IllegalArgumentException.class, () -> PinnedBuffer.width(new Object[1]));
    }
}
