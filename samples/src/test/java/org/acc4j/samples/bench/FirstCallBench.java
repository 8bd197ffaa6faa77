package org.acc4j.samples.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.Kernels;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cache.CubinCache;
import org.acc4j.runtime.cache.KernelCache;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Driver;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.Module;

/**
 * The first call of a kernel, and what a cache saves across runs, in one process: the runtime's start-up, then for
 * several distinct modules the two ways a kernel compiled before can load fast, each timed on its own:
 * <ul>
 *   <li><b>driver</b>: {@code cuModuleLoadDataEx} of the PTX, which the CUDA driver compiles, or finds in its own JIT
 *       cache ({@code CUDA_CACHE_PATH}, {@code ~/.nv/ComputeCache} by default);</li>
 *   <li><b>cubin</b>: the runtime's cubin cache ({@link CubinCache}): compiled with the driver's linker and stored on
 *       a miss, loaded as it is ({@code cuModuleLoadData}) on a hit.</li>
 * </ul>
 * Then the first and second calls of a few {@code @Kernels} methods, end to end (compile, load, launch), with the
 * runtime's own cache as configured ({@code ACC4J_CACHE}, {@code ACC4J_CACHE_DIR}). Under the agent their kernels
 * are compiled as this class loads (loaded through the driver's JIT, or into the cubin cache with
 * {@code ACC4J_CACHE=cubin}), on a background thread, while the table above is measured: their first calls show what an application whose start-up overlaps that compile sees.
 *
 * <p>Run it twice with the same {@code --salt} and folders: the first run is cold, the second shows a kernel compiled
 * in an earlier run. On the GPU machine from a packed {@code .gpu/}:
 * <pre>
 * export CUDA_CACHE_PATH=$(mktemp -d); d=$(mktemp -d)
 * for run in cold cached; do bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -Dacc4j.cache.dir=$d/acc4j \
 *   -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar" org.acc4j.samples.bench.FirstCallBench \
 *   --cubins $d/bench --salt 1; done
 * </pre>
 */
public final class FirstCallBench {
    private FirstCallBench() {
    }

    @Kernels
    static void scale(double[] a, double s, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] * s;
        }
    }

    @Kernels
    static void saxpy(float[] y, float[] x, float alpha, int n) {
        for (int i = 0; i < n; i++) {
            y[i] = alpha * x[i] + y[i];
        }
    }

    @Kernels
    static void stencil(double[] out, double[] in, int n) {
        for (int i = 1; i < n - 1; i++) {
            out[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
        }
    }

    @Kernels
    static void square(long[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = a[i] * a[i] + i;
        }
    }

    public static void main(String[] args) {
        Path cubins = Path.of(System.getProperty("java.io.tmpdir"), "acc4j-first-call-bench");
        String salt = Long.toString(System.nanoTime());
        int modules = 8;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--cubins" -> cubins = Path.of(args[++i]);
                case "--salt" -> salt = args[++i];
                case "--modules" -> modules = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException(
                        "usage: FirstCallBench [--cubins DIR] [--salt S] [--modules 8]");
            }
        }
        long t0 = System.nanoTime();
        Acc.install(AccRuntime.get().backend());
        Acc.init();
        long started = System.nanoTime() - t0;
        if (!AccRuntime.get().onDevice()) {
            System.out.println("no CUDA device: nothing to measure");
            return;
        }
        Device device = Device.all().get(0);
        System.out.printf(Locale.ROOT, "device: %s, driver %d; the runtime's start-up as this main waited for it:"
                + " %.1f ms (under -javaagent it began in the background at JVM start)%n", device.name(),
                Device.driverVersion(), started / 1e6);
        Context context = Context.open(device);
        try {
            routes(device, cubins, salt, modules);
            calls();
        } finally {
            Acc.shutdown();
            context.close();
        }
    }

    /** The same modules loaded both ways; each module's PTX is distinct (and carries the salt). */
    private static void routes(Device device, Path cubins, String salt, int modules) {
        CubinCache<Module> cache = new CubinCache<>(cubins, Device.driverVersion(), device.smTarget(), KernelCache.CUDA,
                System.out::println);
        List<double[]> driver = new ArrayList<>();
        List<double[]> cubin = new ArrayList<>();
        List<String> outcomes = new ArrayList<>();
        for (int k = 0; k < modules; k++) {
            String ptx = LaunchBench.PTX.replace("0d3FF0000000000000", String.format("0d%016X",
                    Double.doubleToLongBits(k + 1.0))) + "// " + salt + " module " + k + "\n";
            // the driver's way: the PTX loaded as it is
            long l0 = System.nanoTime();
            CUmodule m = new CUmodule();
            check(JCudaDriver.cuModuleLoadData(m, (ptx + "\0").getBytes(StandardCharsets.US_ASCII)), "cuModuleLoadData");
            long l1 = System.nanoTime();
            check(JCudaDriver.cuModuleUnload(m), "cuModuleUnload");
            driver.add(new double[] {(l1 - l0) / 1e6});
            // the cubin cache's way (a key of its own, so the entries of the runtime's kernels stay apart)
            long c0 = System.nanoTime();
            CubinCache.Loaded<Module> loaded = cache.module("first-call-bench " + KernelCache.keyOf(ptx), ptx,
                    "module " + k);
            long c1 = System.nanoTime();
            loaded.module().close();
            cubin.add(new double[] {(c1 - c0) / 1e6, loaded.compileNanos() / 1e6, loaded.loadNanos() / 1e6});
            outcomes.add(loaded.outcome().name().toLowerCase(Locale.ROOT));
        }
        System.out.println();
        System.out.println("| module | driver: cuModuleLoadData of PTX, ms | cubin cache: total ms | of which compile |"
                + " of which load | cubin cache |");
        System.out.println("| ---: | ---: | ---: | ---: | ---: | --- |");
        for (int k = 0; k < modules; k++) {
            System.out.printf(Locale.ROOT, "| %d | %.2f | %.2f | %.2f | %.2f | %s |%n", k, driver.get(k)[0],
                    cubin.get(k)[0], cubin.get(k)[1], cubin.get(k)[2], outcomes.get(k));
        }
        System.out.printf(Locale.ROOT, "median: driver %.2f ms, cubin cache %.2f ms (cubins in %s)%n",
                median(driver, 0), median(cubin, 0), cubins);
    }

    /** The first and second calls of distinct {@code @Kernels} methods, with the runtime as configured. */
    private static void calls() {
        int n = 1 << 16;
        double[] a = new double[n];
        double[] b = new double[n];
        float[] x = new float[n];
        float[] y = new float[n];
        long[] l = new long[n];
        java.util.Random r = new java.util.Random(21);
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble();
            b[i] = r.nextDouble();
            x[i] = r.nextFloat();
            y[i] = r.nextFloat();
            l[i] = r.nextInt(1000);
        }
        double[] a0 = a.clone();
        float[] y0 = y.clone();
        long[] l0 = l.clone();
        String[] names = {"scale", "saxpy", "stencil", "square"};
        Runnable[] calls = {() -> scale(a, 1.5, n), () -> saxpy(y, x, 2f, n), () -> stencil(b, a, n),
            () -> square(l, n)};
        System.out.println();
        System.out.println("| @Kernels method | first call ms (compile + load + run) | second call ms |");
        System.out.println("| --- | ---: | ---: |");
        for (int k = 0; k < calls.length; k++) {
            long t0 = System.nanoTime();
            calls[k].run();
            long t1 = System.nanoTime();
            calls[k].run();
            long t2 = System.nanoTime();
            System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f |%n", names[k], (t1 - t0) / 1e6, (t2 - t1) / 1e6);
        }
        // each method ran twice: check every element against plain Java
        int bad = 0;
        for (int i = 0; i < n; i++) {
            double ai = a0[i] * 1.5 * 1.5;
            bad += a[i] == ai ? 0 : 1;
            float yi = 2f * x[i] + y0[i];
            yi = 2f * x[i] + yi;
            bad += y[i] == yi ? 0 : 1;
            long li = l0[i] * l0[i] + i;
            li = li * li + i;
            bad += l[i] == li ? 0 : 1;
            if (i > 0 && i < n - 1) {
                double bi = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
                bad += b[i] == bi ? 0 : 1;
            }
        }
        System.out.println(bad == 0 ? "check: every element as plain Java computes it"
                : "check FAILED: " + bad + " elements differ from plain Java");
        System.out.println("(with -Dacc4j.profile=true the profile at exit splits each method's time into compile and"
                + " load, and gives the CUDA start-up)");
    }

    private static double median(List<double[]> rows, int column) {
        double[] v = rows.stream().mapToDouble(x -> x[column]).toArray();
        Arrays.sort(v);
        return v[v.length / 2];
    }

    private static void check(int result, String call) {
        Driver.check(result, call, "the first-call benchmark");
    }
}
