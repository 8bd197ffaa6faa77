package org.acc4j.runtime.cuda;

import jcuda.driver.CUresult;

/**
 * A CUDA driver call returned something other than {@code CUDA_SUCCESS}.
 *
 * <p>The message names the driver call, the symbolic result code and what acc4j was doing,
 * for example {@code cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2) while allocating
 * 8388608 bytes for double[1048576]}. Instances are immutable.
 */
public final class DriverException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int result;
    private final String call;

    /**
     * @param result  the {@code CUresult} code the driver returned
     * @param call    the driver function, e.g. {@code cuMemAlloc}
     * @param context what the caller was doing, phrased to follow "while", e.g.
     *                {@code allocating 80 bytes for double[10]}
     */
    public DriverException(int result, String call, String context) {
        super(message(result, call, context));
        this.result = result;
        this.call = call;
    }

    /**
     * As {@link #DriverException(int, String, String)}, with extra detail (such as a JIT error
     * log) appended on its own lines.
     */
    public DriverException(int result, String call, String context, String detail) {
        super(message(result, call, context)
                + (detail == null || detail.isBlank() ? "" : System.lineSeparator() + detail.strip()));
        this.result = result;
        this.call = call;
    }

    /** The {@code CUresult} code, see {@link CUresult}. */
    public int result() {
        return result;
    }

    /** The name of the failed driver call. */
    public String call() {
        return call;
    }

    private static String message(int result, String call, String context) {
        // CUresult.stringFor is plain Java: no native library is needed to build the message
        return call + " failed: " + CUresult.stringFor(result) + " (" + result + ")"
                + (context == null || context.isEmpty() ? "" : " while " + context);
    }
}
