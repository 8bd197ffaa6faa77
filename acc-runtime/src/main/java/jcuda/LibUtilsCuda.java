package jcuda;

import org.acc4j.runtime.cuda.DriverLibrary;

/**
 * acc4j's replacement for JCuda's class of the same name, which loads JCuda's native libraries. It comes before
 * JCuda's on the class path (acc.jar ships only this one) and keeps JCuda's contract: same name, same method.
 *
 * <p>JCuda's own copy tries {@code java.library.path} and then extracts the library into {@code java.io.tmpdir}
 * under a fixed name, leaving it there for every user of the machine. This one loads the driver library through
 * {@link DriverLibrary}: from a per-user cache folder, written atomically and reused. Libraries it does not ship
 * (other platforms, libraries with dependents) go through JCuda's {@link LibUtils} as before.
 */
public final class LibUtilsCuda {
    private LibUtilsCuda() {
    }

    /**
     * Loads JCuda's native library {@code libraryName} (e.g. {@code JCudaDriver-12.0.0-linux-x86_64}).
     *
     * @throws UnsatisfiedLinkError when the library or one it links against ({@code libcuda.so.1}) cannot be loaded
     */
    public static void loadLibrary(String libraryName, String... dependentLibraryNames) {
        if (LibUtils.calculateOS() == LibUtils.OSType.APPLE) {
            throw new CudaException("This CUDA version is not available on MacOS");
        }
        if (dependentLibraryNames.length == 0 && DriverLibrary.load(libraryName)) {
            return;
        }
        LibUtils.loadLibrary(libraryName, dependentLibraryNames);
    }
}
