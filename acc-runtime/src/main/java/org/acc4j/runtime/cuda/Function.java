package org.acc4j.runtime.cuda;

import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.JCudaDriver;

/**
 * One kernel entry point of a {@link Module}.
 *
 * <p>Not a resource of its own: the {@code CUfunction} lives as long as its module, and every
 * call here fails with {@link IllegalStateException} once the module is closed. Launches go to
 * the default (null) stream and are asynchronous; wait with {@link Context#synchronize(String)}.
 * Immutable; calls need the owning context current on the calling thread. The grid launches pass the dynamic
 * shared memory of {@link #withDynamicShared} (none by default).
 */
public final class Function {

    private final Module module;
    private final CUfunction function;
    private final String name;
    private final int dynamicShared;

    Function(Module module, CUfunction function, String name) {
        this(module, function, name, 0);
    }

    private Function(Module module, CUfunction function, String name, int dynamicShared) {
        this.module = module;
        this.function = function;
        this.name = name;
        this.dynamicShared = dynamicShared;
    }

    /**
     * This kernel launched with {@code bytes} of dynamic shared memory per block by the grid launches: allows that
     * much ({@code cuFuncSetAttribute} of {@code CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES}, beyond the 48 KiB
     * a kernel may use without it); this function itself when {@code bytes} is 0.
     */
    public Function withDynamicShared(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative dynamic shared memory for kernel " + name + ": " + bytes);
        }
        if (bytes == 0) {
            return this;
        }
        module.ensureOpen();
        Driver.check(JCudaDriver.cuFuncSetAttribute(function,
                CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes), "cuFuncSetAttribute",
                "allowing " + bytes + " bytes of dynamic shared memory to kernel " + name);
        return new Function(module, function, name, bytes);
    }

    /** The dynamic shared memory per block of its grid launches, in bytes. */
    public int dynamicShared() {
        return dynamicShared;
    }

    /** The PTX entry name. */
    public String name() {
        return name;
    }

    /** The module this kernel belongs to. */
    public Module module() {
        return module;
    }

    /**
     * Reads an attribute via {@code cuFuncGetAttribute}.
     *
     * @param attribute a {@link CUfunction_attribute} constant
     */
    public int attribute(int attribute) {
        module.ensureOpen();
        int[] value = new int[1];
        Driver.check(JCudaDriver.cuFuncGetAttribute(value, attribute, function), "cuFuncGetAttribute",
                "reading " + CUfunction_attribute.stringFor(attribute) + " of kernel " + name);
        return value[0];
    }

    /** Registers per thread. */
    public int registers() {
        return attribute(CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS);
    }

    /** Local (spill/stack) memory per thread, in bytes. */
    public int localBytes() {
        return attribute(CUfunction_attribute.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    }

    /** Statically allocated shared memory per block, in bytes. */
    public int sharedBytes() {
        return attribute(CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    }

    /** The largest block this kernel can be launched with, given its resource use. */
    public int maxThreadsPerBlock() {
        return attribute(CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    }

    /**
     * Launches a one-dimensional grid with no dynamic shared memory.
     *
     * @param what describes the launch for messages, e.g. {@code loop at Saxpy.run line 14}
     */
    public void launch(int gridX, int blockX, KernelArgs args, String what) {
        launch(gridX, blockX, 0, args, what);
    }

    /**
     * Launches a one-dimensional grid on the default stream; does not wait for it.
     *
     * @param gridX       number of blocks, at least 1
     * @param blockX      threads per block, at least 1
     * @param sharedBytes dynamic shared memory per block
     * @param args        the kernel parameters, in the order of the PTX {@code .param}s
     * @param what        describes the launch for messages
     * @throws DriverException when the driver rejects the launch (bad configuration, missing
     *                       context, an earlier sticky fault)
     */
    public void launch(int gridX, int blockX, int sharedBytes, KernelArgs args, String what) {
        if (gridX < 1 || blockX < 1 || sharedBytes < 0) {
            throw new IllegalArgumentException("bad launch configuration for kernel " + name + ": grid "
                    + gridX + ", block " + blockX + ", shared bytes " + sharedBytes);
        }
        module.ensureOpen();
        int result = JCudaDriver.cuLaunchKernel(function, gridX, 1, 1, blockX, 1, 1, sharedBytes,
                null, args.toPointer(), null);
        Driver.check(result, "cuLaunchKernel", "launching kernel " + name + " (" + what + ") with grid "
                + gridX + " x block " + blockX + " and " + args.count() + " parameters");
    }

    /**
     * Launches a three-dimensional grid of three-dimensional blocks on the default stream; does not wait.
     *
     * @param grid blocks on x, y, z, each at least 1
     * @param block threads on x, y, z, each at least 1
     */
    public void launch(int[] grid, int[] block, KernelArgs args, String what) {
        for (int k = 0; k < 3; k++) {
            if (grid[k] < 1 || block[k] < 1) {
                throw new IllegalArgumentException("bad launch configuration for kernel " + name + ": grid "
                        + java.util.Arrays.toString(grid) + ", block " + java.util.Arrays.toString(block));
            }
        }
        module.ensureOpen();
        int result = JCudaDriver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                dynamicShared, null, args.toPointer(), null);
        Driver.check(result, "cuLaunchKernel", "launching kernel " + name + " (" + what + ") with grid "
                + grid[0] + " x " + grid[1] + " x " + grid[2] + " of blocks " + block[0] + " x " + block[1] + " x "
                + block[2] + " and " + args.count() + " parameters");
    }

    /**
     * Launches a three-dimensional grid of three-dimensional blocks on {@code stream} (the default stream when
     * null); does not wait.
     */
    public void launch(int[] grid, int[] block, KernelArgs args, String what, Stream stream) {
        if (stream == null) {
            launch(grid, block, args, what);
            return;
        }
        for (int k = 0; k < 3; k++) {
            if (grid[k] < 1 || block[k] < 1) {
                throw new IllegalArgumentException("bad launch configuration for kernel " + name + ": grid "
                        + java.util.Arrays.toString(grid) + ", block " + java.util.Arrays.toString(block));
            }
        }
        module.ensureOpen();
        int result = JCudaDriver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                dynamicShared, stream.handle(), args.toPointer(), null);
        Driver.check(result, "cuLaunchKernel", "launching kernel " + name + " (" + what + ") on " + stream.what()
                + " with grid " + grid[0] + " x " + grid[1] + " x " + grid[2] + " of blocks " + block[0] + " x "
                + block[1] + " x " + block[2] + " and " + args.count() + " parameters");
    }

    /**
     * Launches with parameters kept in mapped memory, on {@code stream} (the default stream when null); does not
     * wait. Builds no message unless the driver refuses.
     *
     * @param what describes the launch for messages (made once by the caller, not per launch)
     */
    public void launch(int[] grid, int[] block, LaunchArgs args, Stream stream, String what) {
        if (grid[0] < 1 || grid[1] < 1 || grid[2] < 1 || block[0] < 1 || block[1] < 1 || block[2] < 1) {
            throw new IllegalArgumentException("bad launch configuration for kernel " + name + ": grid "
                    + java.util.Arrays.toString(grid) + ", block " + java.util.Arrays.toString(block));
        }
        module.ensureOpen();
        int result = JCudaDriver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                dynamicShared, stream == null ? null : stream.handle(), args.table(), null);
        if (result != jcuda.driver.CUresult.CUDA_SUCCESS) {
            Driver.check(result, "cuLaunchKernel", "launching kernel " + name + " (" + what + ")"
                    + (stream == null ? "" : " on " + stream.what()) + " with grid " + grid[0] + " x " + grid[1]
                    + " x " + grid[2] + " of blocks " + block[0] + " x " + block[1] + " x " + block[2] + " and "
                    + args.count() + " parameters");
        }
    }

    @Override
    public String toString() {
        return "Function[" + name + " in " + module.name() + "]";
    }
}
