package org.acc4j.runtime.cuda;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.JCudaDriver;

/**
 * A description of one CUDA device, read once from the driver.
 *
 * <p>Not {@link AutoCloseable}: a {@code CUdevice} is an ordinal, not a resource. A
 * {@link Context} is what holds resources on a device.
 *
 * @param ordinal                     the driver's device ordinal (0-based)
 * @param name                        the marketing name, e.g. {@code NVIDIA H100 80GB HBM3}
 * @param computeMajor                compute capability, major part
 * @param computeMinor                compute capability, minor part
 * @param multiprocessors             number of SMs
 * @param maxThreadsPerMultiprocessor resident threads per SM
 * @param maxThreadsPerBlock          largest block size
 * @param totalMemory                 global memory in bytes
 */
public record Device(int ordinal, String name, int computeMajor, int computeMinor,
                     int multiprocessors, int maxThreadsPerMultiprocessor,
                     int maxThreadsPerBlock, long totalMemory) {

    /**
     * Every device the driver reports, in ordinal order (empty when there is none).
     *
     * @throws UnsatisfiedLinkError when the JCuda native library or {@code libcuda.so.1} is
     *                              missing; callers that must run without a GPU catch it
     * @throws NoClassDefFoundError when JCuda failed to load earlier in this JVM
     * @throws DriverException        when a driver query fails
     */
    public static List<Device> all() {
        try {
            Driver.init();
        } catch (DriverException e) {
            // a machine with a driver but no device answers cuInit with NO_DEVICE
            if (e.result() == jcuda.driver.CUresult.CUDA_ERROR_NO_DEVICE) {
                return List.of();
            }
            throw e;
        }
        int[] count = new int[1];
        Driver.check(JCudaDriver.cuDeviceGetCount(count), "cuDeviceGetCount", "counting CUDA devices");
        List<Device> devices = new ArrayList<>(count[0]);
        for (int i = 0; i < count[0]; i++) {
            devices.add(query(i));
        }
        return List.copyOf(devices);
    }

    /** The device at {@code ordinal}; same failures as {@link #all()}. */
    public static Device get(int ordinal) {
        Driver.init();
        return query(ordinal);
    }

    /** The PTX/SASS target for this device, e.g. {@code sm_90}. */
    public String smTarget() {
        return "sm_" + computeMajor + computeMinor;
    }

    /**
     * Whether kernels can read and write mapped pinned host memory ({@link MappedMemory}) at the same address space
     * as the host's (unified addressing); false when the driver cannot say.
     */
    public boolean canMapHostMemory() {
        try {
            CUdevice d = lookup(ordinal);
            return attribute(d, ordinal, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY) != 0
                    && attribute(d, ordinal, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) != 0;
        } catch (DriverException e) {
            return false;
        }
    }

    /** The driver's version, e.g. 12040 for CUDA 12.4 ({@code cuDriverGetVersion}); 0 when it cannot say. */
    public static int driverVersion() {
        int[] v = new int[1];
        return JCudaDriver.cuDriverGetVersion(v) == 0 ? v[0] : 0;
    }

    /** The driver handle for this device; package-private, used by {@link Context}. */
    CUdevice handle() {
        return lookup(ordinal);
    }

    private static CUdevice lookup(int ordinal) {
        CUdevice device = new CUdevice();
        Driver.check(JCudaDriver.cuDeviceGet(device, ordinal), "cuDeviceGet", "looking up device " + ordinal);
        return device;
    }

    private static Device query(int ordinal) {
        CUdevice device = lookup(ordinal);
        byte[] raw = new byte[256];
        Driver.check(JCudaDriver.cuDeviceGetName(raw, raw.length, device), "cuDeviceGetName",
                "reading the name of device " + ordinal);
        long[] total = new long[1];
        Driver.check(JCudaDriver.cuDeviceTotalMem(total, device), "cuDeviceTotalMem",
                "reading the memory size of device " + ordinal);
        return new Device(ordinal, cString(raw),
                attribute(device, ordinal, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                attribute(device, ordinal, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
                attribute(device, ordinal, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
                attribute(device, ordinal, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
                attribute(device, ordinal, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
                total[0]);
    }

    private static int attribute(CUdevice device, int ordinal, int attribute) {
        int[] value = new int[1];
        Driver.check(JCudaDriver.cuDeviceGetAttribute(value, attribute, device), "cuDeviceGetAttribute",
                "reading " + CUdevice_attribute.stringFor(attribute) + " of device " + ordinal);
        return value[0];
    }

    private static String cString(byte[] raw) {
        // the driver writes a NUL-terminated string
        int end = 0;
        while (end < raw.length && raw[end] != 0) {
            end++;
        }
        return new String(raw, 0, end, StandardCharsets.US_ASCII);
    }
}
