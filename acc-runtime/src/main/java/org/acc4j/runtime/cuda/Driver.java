package org.acc4j.runtime.cuda;

import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Result checking and one-time driver set-up shared by the classes of this package.
 *
 * <p>acc4j turns JCuda's own exceptions off and checks every {@code CUresult} itself, so
 * that a failure names the call and what it was doing (see {@link DriverException}).
 */
public final class Driver {

    private Driver() {
    }

    /**
     * Throws a {@link DriverException} when {@code result} is not {@code CUDA_SUCCESS}.
     *
     * @param result  the code a driver call returned
     * @param call    the driver call's name
     * @param context what was being done, phrased to follow "while"
     */
    public static void check(int result, String call, String context) {
        if (result != CUresult.CUDA_SUCCESS) {
            throw new DriverException(result, call, context);
        }
    }

    /**
     * Turns JCuda's exceptions off and calls {@code cuInit(0)}; cheap to repeat.
     *
     * @throws UnsatisfiedLinkError  when the JCuda native library or {@code libcuda.so.1}
     *                               cannot be loaded (no driver installed)
     * @throws NoClassDefFoundError  when an earlier attempt to load JCuda failed
     * @throws DriverException         when {@code cuInit} fails, e.g. {@code CUDA_ERROR_NO_DEVICE}
     */
    static void init() {
        JCudaDriver.setExceptionsEnabled(false);
        check(JCudaDriver.cuInit(0), "cuInit", "initialising the CUDA driver");
    }
}
