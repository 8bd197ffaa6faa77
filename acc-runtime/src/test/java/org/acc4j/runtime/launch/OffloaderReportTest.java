package org.acc4j.runtime.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The report's line on a kernel's resources (the values come from cuFuncGetAttribute; ProfileGpuTest reads real ones). */
class OffloaderReportTest {
    @Test
    void resourcesReadLikeMinfoAccel() {
        assertEquals("Saxpy.java:14: kernel acc_Saxpy_run_r0: 16 registers, 256 bytes shared memory (static), 0 bytes"
                + " local memory per thread, at most 1024 threads per block",
                Offloader.resources("Saxpy.java", 14, "acc_Saxpy_run_r0", 16, 256, 0, 0, 1024));
        assertEquals("?: kernel k: 1 registers, 0 bytes shared memory (static), 8 bytes local memory per thread, at most"
                + " 512 threads per block", Offloader.resources(null, 0, "k", 1, 0, 0, 8, 512));
        assertEquals("T.java:3: kernel t: 120 registers, 0 bytes shared memory (static) and 98304 (dynamic), 0 bytes"
                + " local memory per thread, at most 256 threads per block",
                Offloader.resources("T.java", 3, "t", 120, 0, 98304, 0, 256));
    }
}
