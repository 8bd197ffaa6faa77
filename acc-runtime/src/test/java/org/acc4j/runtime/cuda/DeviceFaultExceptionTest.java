package org.acc4j.runtime.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jcuda.driver.CUresult;
import org.junit.jupiter.api.Test;

/** Which CUDA errors rebuild the device, and what the exception says; no GPU needed. */
class DeviceFaultExceptionTest {

    @Test
    void stickyErrorsAreTheOnesThatCorruptTheContext() {
        for (int code : new int[] {CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, CUresult.CUDA_ERROR_LAUNCH_FAILED,
                CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION, CUresult.CUDA_ERROR_HARDWARE_STACK_ERROR,
                CUresult.CUDA_ERROR_MISALIGNED_ADDRESS, CUresult.CUDA_ERROR_INVALID_ADDRESS_SPACE,
                CUresult.CUDA_ERROR_INVALID_PC, CUresult.CUDA_ERROR_ASSERT, CUresult.CUDA_ERROR_LAUNCH_TIMEOUT,
                CUresult.CUDA_ERROR_ECC_UNCORRECTABLE, CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED}) {
            assertTrue(DeviceFaultException.sticky(code), CUresult.stringFor(code));
        }
        // these leave the context usable: the runtime reports them as they are
        for (int code : new int[] {CUresult.CUDA_SUCCESS, CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                CUresult.CUDA_ERROR_INVALID_VALUE, CUresult.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                CUresult.CUDA_ERROR_INVALID_PTX, CUresult.CUDA_ERROR_NOT_FOUND}) {
            assertFalse(DeviceFaultException.sticky(code), CUresult.stringFor(code));
        }
    }

    @Test
    void messageNamesWhatRanTheErrorAndWhatWasLost() {
        DriverException fault = new DriverException(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize",
                "waiting for kernel saxpy_loop_12 of Saxpy.run");
        DeviceFaultException e = new DeviceFaultException("Saxpy.run", fault, 3, null, java.util.List.of("double[10]"));
        assertEquals("acc4j: the device faulted in Saxpy.run: cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700)"
                + " while waiting for kernel saxpy_loop_12 of Saxpy.run. The CUDA context was rebuilt and the next call"
                + " runs normally; 3 arrays present on the device were restored from the host's copy, and this call's"
                + " results did not reach the host. Lost with the device: the changes kernels had made to 1 array not"
                + " yet copied back (double[10]); acc4j refuses them from now on, until Acc.delete is called on each",
                e.getMessage());
        assertSame(fault, e.getCause());
        assertEquals(700, e.result());
        assertEquals("Saxpy.run", e.what());
        assertEquals(java.util.List.of("double[10]"), e.lostArrays());
        assertTrue(e.rebuilt());
    }

    @Test
    void aFailedRebuildLosesTheDeviceAndSaysSo() {
        DriverException fault = new DriverException(CUresult.CUDA_ERROR_LAUNCH_FAILED, "cuCtxSynchronize", "waiting");
        IllegalStateException why = new IllegalStateException("cuDevicePrimaryCtxRetain failed: CUDA_ERROR_LAUNCH_FAILED");
        DeviceFaultException e = new DeviceFaultException("Acc.waitAll", fault, -1, why, java.util.List.of());
        assertFalse(e.rebuilt());
        assertTrue(e.getMessage().endsWith(". The driver gave no new CUDA context after it (cuDevicePrimaryCtxRetain"
                + " failed: CUDA_ERROR_LAUNCH_FAILED), so the device is lost for the rest of this process: @Kernels"
                + " methods run as plain Java from now on, and this call's results did not reach the host"),
                e.getMessage());
        assertSame(why, e.getSuppressed()[0]);
    }

    @Test
    void manyLostArraysAreShortened() {
        DriverException fault = new DriverException(CUresult.CUDA_ERROR_LAUNCH_FAILED, "cuCtxSynchronize", "waiting");
        java.util.List<String> lost = java.util.stream.IntStream.range(0, 10).mapToObj(i -> "int[" + i + "]").toList();
        DeviceFaultException e = new DeviceFaultException("K.run", fault, -1, new IllegalStateException("x"), lost);
        assertTrue(e.getMessage().contains("to 10 arrays not yet copied back (int[0], int[1], int[2], int[3], int[4],"
                + " int[5], int[6], int[7], ...)"), e.getMessage());
    }
}
