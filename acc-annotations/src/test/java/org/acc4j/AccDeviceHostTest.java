package org.acc4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Without the agent, the device and memory routines are OpenACC's host device: one device, number 0, no device
 * memory (address 0), and arguments checked as with a GPU.
 */
class AccDeviceHostTest {
    @Test
    void theHostIsDeviceZero() {
        assertEquals(0, Acc.getDeviceNumber());
        Acc.setDeviceNumber(0);
        assertEquals(0, Acc.getDeviceNumber());
        DeviceProperties p = Acc.deviceProperties();
        assertEquals(0, p.number());
        assertEquals("host", p.name());
        assertEquals(Runtime.getRuntime().maxMemory(), p.memory());
        assertTrue(p.freeMemory() > 0 && p.freeMemory() <= p.memory(), p::toString);
        assertEquals(0, p.computeMajor());
        assertEquals("", p.smTarget());
        assertEquals(Runtime.getRuntime().availableProcessors(), p.multiprocessors());
        assertEquals("host", Acc.deviceProperties(0).name());
    }

    @Test
    void otherDeviceNumbersAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.setDeviceNumber(1));
        assertEquals("acc4j: Acc.setDeviceNumber(1): there is no device 1: running as plain Java (OpenACC's host"
                + " device), the only device is 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Acc.setDeviceNumber(-1));
        assertEquals("acc4j: Acc.setDeviceNumber(-1): device numbers are 0 or more", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Acc.deviceProperties(2));
        assertThrows(IllegalArgumentException.class, () -> Acc.deviceProperties(-3));
    }

    @Test
    void thereIsNoDeviceMemory() {
        assertEquals(0, Acc.malloc(1 << 20));
        assertEquals(0, Acc.malloc(0));
        Acc.free(0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.malloc(-8));
        assertEquals("acc4j: Acc.malloc(-8): a size is 0 or more", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Acc.free(0x7f00_0000_0000L));
        assertTrue(e.getMessage().startsWith("acc4j: Acc.free(0x7f0000000000): not an address Acc.malloc gave"),
                e.getMessage());
        double[] a = {1, 2, 3};
        assertEquals(0, Acc.deviceptr(a));
        assertThrows(NullPointerException.class, () -> Acc.deviceptr(null));
        assertThrows(IllegalArgumentException.class, () -> Acc.deviceptr("x"));
    }

    @Test
    void finalizeRoutinesLeaveSharedMemoryAlone() {
        double[] a = {1, 2, 3};
        int[][] m = {{1}, {2, 3}};
        Acc.copyin(a, m);
        Acc.copyin(a);
        Acc.copyoutFinalize(a, m);
        Acc.deleteFinalize(a);
        assertArrayEquals(new double[] {1, 2, 3}, a);
        assertArrayEquals(new int[] {2, 3}, m[1]);
        assertTrue(Acc.isPresent(a));
        assertThrows(IllegalArgumentException.class, () -> Acc.deleteFinalize(new Object()));
    }
}
