package org.acc4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Without the agent, the routines have the host device's semantics. */
class AccHostTest {
    @Test
    void hostDeviceHasSharedMemory() {
        double[] a = {1, 2, 3};
        assertEquals(0, Acc.deviceCount());
        assertFalse(Acc.onDevice());
        assertEquals("host", Acc.deviceName());
        Acc.copyin(a);
        assertTrue(Acc.isPresent(a));
        Acc.updateHost(a);
        Acc.copyout(a);
        Acc.waitAll();
        assertEquals(2.0, a[1]);
    }

    @Test
    void reportSaysThereIsNoProfileWithoutTheAgent() {
        String r = Acc.report();
        assertTrue(r.startsWith("acc4j: no profile is available") && r.contains("without the acc4j agent"), r);
        assertEquals(1, r.lines().count(), r);
    }

    @Test
    void argumentsAreCheckedAsOnTheDevice() {
        assertThrows(NullPointerException.class, () -> Acc.copyin((Object) null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.copyin("not an array"));
        assertTrue(e.getMessage().contains("java.lang.String"));
        assertTrue(Acc.isPresent(new double[2][2]));
        assertThrows(IllegalArgumentException.class, () -> Acc.isPresent(new double[2][2][2]));
    }
}
