package org.acc4j.runtime.cuda;

import java.nio.charset.StandardCharsets;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUjit_option;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import jcuda.driver.JITOptions;

/**
 * Owns one loaded CUDA module, JIT-compiled from PTX text.
 *
 * <p>Loading goes through {@code cuModuleLoadDataEx} (JCuda's {@code cuModuleLoadDataJIT})
 * with error and info log buffers, so a PTX that does not assemble fails with a
 * {@link DriverException} whose message carries the JIT error log. The info log of a successful
 * load (warnings, register spills) is kept in {@link #infoLog()}.
 *
 * <p>Invariant: the {@code CUmodule} is unloaded exactly once, by the first {@link #close()};
 * {@link Function}s obtained from it must not be used afterwards. Loading, looking up and
 * closing need the owning {@link Context} current on the calling thread. Note that the simple
 * name clashes with {@code java.lang.Module}: import this class by its full name rather than
 * with {@code org.acc4j.runtime.cuda.*}.
 */
public final class Module extends Handle {

    /** Size of each JIT log buffer in bytes. */
    private static final int LOG_BYTES = 64 * 1024;

    private final CUmodule module;
    private final String name;
    private final String infoLog;

    private Module(CUmodule module, String name, String infoLog) {
        this.module = module;
        this.name = name;
        this.infoLog = infoLog;
    }

    /**
     * JIT-compiles and loads PTX into the current context.
     *
     * @param ptx  the PTX text (a NUL terminator is added here)
     * @param name a name for messages, e.g. the Java class and method the PTX came from
     * @throws DriverException with the JIT error log appended when loading fails
     */
    public static Module load(String ptx, String name) {
        Driver.init();
        byte[] text = ptx.getBytes(StandardCharsets.UTF_8);
        byte[] image = new byte[text.length + 1];
        // the driver reads PTX as a C string: the last byte stays 0
        System.arraycopy(text, 0, image, 0, text.length);
        JITOptions options = new JITOptions();
        options.putBytes(CUjit_option.CU_JIT_ERROR_LOG_BUFFER, new byte[LOG_BYTES]);
        options.putInt(CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, LOG_BYTES);
        options.putBytes(CUjit_option.CU_JIT_INFO_LOG_BUFFER, new byte[LOG_BYTES]);
        options.putInt(CUjit_option.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, LOG_BYTES);
        CUmodule module = new CUmodule();
        int result = JCudaDriver.cuModuleLoadDataJIT(module, Pointer.to(image), options);
        String errorLog = log(options, CUjit_option.CU_JIT_ERROR_LOG_BUFFER);
        String infoLog = log(options, CUjit_option.CU_JIT_INFO_LOG_BUFFER);
        if (result != CUresult.CUDA_SUCCESS) {
            String detail = errorLog.isEmpty() ? "(the JIT error log is empty)" : "JIT error log:\n" + errorLog;
            if (!infoLog.isEmpty()) {
                detail += "\nJIT info log:\n" + infoLog;
            }
            throw new DriverException(result, "cuModuleLoadDataEx",
                    "loading module " + name + " (" + text.length + " bytes of PTX)", detail);
        }
        return new Module(module, name, infoLog);
    }

    /**
     * Compiles PTX for the current context's device into a cubin image, in this process, with the driver's linker
     * ({@code cuLinkCreate}, {@code cuLinkAddData}, {@code cuLinkComplete}): the image {@link #loadImage} loads
     * without compiling, in this run or a later one.
     *
     * @throws DriverException with the JIT error log when the PTX does not assemble
     */
    public static byte[] compile(String ptx, String name) {
        Driver.init();
        byte[] text = ptx.getBytes(StandardCharsets.UTF_8);
        byte[] image = new byte[text.length + 1];
        System.arraycopy(text, 0, image, 0, text.length);
        // No log buffers for the link state: the driver keeps the option pointers until cuLinkDestroy and writes
        // its logs through them, but JCuda frees its native copies of the options when cuLinkCreate returns, so a
        // log buffer here is written after it was freed (heap corruption). The error log of PTX that does not
        // assemble comes from loading it with cuModuleLoadDataEx instead, whose options live for that one call.
        jcuda.driver.CUlinkState state = new jcuda.driver.CUlinkState();
        Driver.check(JCudaDriver.cuLinkCreate(new JITOptions(), state), "cuLinkCreate", "compiling module " + name);
        try {
            int result = JCudaDriver.cuLinkAddData(state, jcuda.driver.CUjitInputType.CU_JIT_INPUT_PTX,
                    Pointer.to(image), image.length, name, new JITOptions());
            if (result == CUresult.CUDA_SUCCESS) {
                Pointer cubin = new Pointer();
                long[] size = new long[1];
                result = JCudaDriver.cuLinkComplete(state, cubin, size);
                if (result == CUresult.CUDA_SUCCESS) {
                    return copyOut(cubin, size[0], name);
                }
            }
        } finally {
            JCudaDriver.cuLinkDestroy(state);
        }
        // the linker refused it: loading the PTX gives the same refusal with the JIT's error log (or, should it load,
        // the linker's own error with no log)
        try (Module m = load(ptx, name)) {
            throw new DriverException(CUresult.CUDA_ERROR_INVALID_PTX, "cuLinkAddData/cuLinkComplete",
                    "compiling module " + name + " (" + text.length + " bytes of PTX)",
                    "the driver's linker refused PTX that cuModuleLoadDataEx accepts");
        }
    }

    /**
     * The {@code bytes} at {@code image}, memory the linker owns until {@code cuLinkDestroy}. JCuda reads native
     * memory only through buffers of its own, so the bytes go through a device buffer: host to device, device to
     * host (a cubin is tens of kilobytes).
     */
    private static byte[] copyOut(Pointer image, long bytes, String name) {
        byte[] out = new byte[Math.toIntExact(bytes)];
        jcuda.driver.CUdeviceptr d = new jcuda.driver.CUdeviceptr();
        Driver.check(JCudaDriver.cuMemAlloc(d, Math.max(1, bytes)), "cuMemAlloc", "a buffer for the cubin of " + name);
        try {
            Driver.check(JCudaDriver.cuMemcpyHtoD(d, image, bytes), "cuMemcpyHtoD", "the cubin of " + name);
            Driver.check(JCudaDriver.cuMemcpyDtoH(Pointer.to(out), d, bytes), "cuMemcpyDtoH", "the cubin of " + name);
        } finally {
            JCudaDriver.cuMemFree(d);
        }
        return out;
    }

    /**
     * Loads a cubin image made by {@link #compile} into the current context ({@code cuModuleLoadData}): no compiling.
     *
     * @throws DriverException when the driver refuses the image (another architecture's, or not an image)
     */
    public static Module loadImage(byte[] image, String name) {
        Driver.init();
        CUmodule module = new CUmodule();
        Driver.check(JCudaDriver.cuModuleLoadData(module, image), "cuModuleLoadData",
                "loading module " + name + " (" + image.length + " bytes of cubin)");
        return new Module(module, name, "");
    }

    /** The name given to {@link #load}. */
    public String name() {
        return name;
    }

    /** The JIT info log of the load; empty when the JIT had nothing to say. */
    public String infoLog() {
        return infoLog;
    }

    /**
     * Looks up a kernel entry point.
     *
     * @param entryName the {@code .entry} name in the PTX
     * @throws DriverException {@code CUDA_ERROR_NOT_FOUND} when there is no such entry
     */
    public Function function(String entryName) {
        ensureOpen();
        CUfunction function = new CUfunction();
        Driver.check(JCudaDriver.cuModuleGetFunction(function, module, entryName), "cuModuleGetFunction",
                "looking up kernel " + entryName + " in module " + name);
        return new Function(this, function, entryName);
    }

    /** Unloads the module, once. */
    @Override
    protected void release() {
        Driver.check(JCudaDriver.cuModuleUnload(module), "cuModuleUnload", "unloading module " + name);
    }

    @Override
    protected String closedMessage() {
        return "module " + name + " is closed";
    }

    private static String log(JITOptions options, int key) {
        // JCuda copies the driver's buffer back; getString stops at the first NUL
        String text = options.getString(key);
        return text == null ? "" : text.strip();
    }

    @Override
    public String toString() {
        return "Module[" + name + (isClosed() ? ", closed" : "") + "]";
    }
}
