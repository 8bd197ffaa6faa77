package org.acc4j.samples.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.samples.Jacobi;
import org.acc4j.samples.PairedStats;

/**
 * The Jacobi sweep's kernel alone, several forms side by side in one process, each launched by raw JCuda and timed by
 * CUDA events as the peers are ({@code shared/anchors}: the median of single launches): the unchecked kernel the
 * compiler emits now for {@code Jacobi.sweep} with marching off ({@code acc4j}), with the stores streaming
 * ({@code acc4j+cs}), with an L2 prefetch hint on the loads ({@code acc4j+L2}), the marched kernel (each thread walks a chunk of
 * rows, the column's values in registers: {@code marched}), a baseline kernel
 * ({@code baseline}, a resource: the unchecked kernel with each subscript computed in 32 bits and both levels as
 * grid-stride loops), and the hand CUDA kernel of the peers compiled to PTX
 * ({@code hand}, a resource; the ratios are to it with 32 × 8 blocks, as the peers launch it). Each form runs on the same arrays in interleaved rounds, in a shuffled
 * order per round, and its result is compared with plain Java, every element.
 *
 * <p>Run on the GPU machine from a packed {@code .gpu/}: {@code bash .gpu/on-gpu.sh -cp
 * ".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:.gpu/lib/annotations.jar" org.acc4j.samples.bench.JacobiKernels
 * [n [rounds]]}.
 */
public final class JacobiKernels {
    private JacobiKernels() {
    }

    /** Rows per thread of the marched kernel (its chunk, read from its region when it is compiled). */
    private static int chunk = 1;

    private record Form(String name, CUfunction function, boolean hand, boolean marched, int bx, int by) {
    }

    /** The variant without bounds checks of {@code Jacobi.sweep} as the compiler emits it now, entry renamed. */
    private static String unchecked(byte[] classFile, String entry) {
        Compiler.Result compiled = Compiler.compile(classFile, "sweep", "([D[DII)V", 90);
        if (!(compiled instanceof Compiler.Offload o)) {
            throw new IllegalStateException("Jacobi.sweep does not offload: " + compiled);
        }
        KernelPlan plan = o.method().kernels().get(0);
        if (plan.unchecked().marched() != null) {
            chunk = org.acc4j.compiler.pass.MarchSteps.chunkOf(plan.unchecked().marched());
        }
        System.out.println("compiled " + plan.unchecked().entry() + " as " + entry);
        return plan.unchecked().ptx().replace(plan.unchecked().entry(), entry);
    }

    public static void main(String[] args) throws IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 8192;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        JCudaDriver.setExceptionsEnabled(true);
        JCudaDriver.cuInit(0);
        CUdevice device = new CUdevice();
        JCudaDriver.cuDeviceGet(device, 0);
        byte[] name = new byte[256];
        JCudaDriver.cuDeviceGetName(name, name.length, device);
        CUcontext context = new CUcontext();
        JCudaDriver.cuCtxCreate(context, 0, device);
        System.out.println("device: " + new String(name, StandardCharsets.US_ASCII).trim() + "; n = " + n + ", "
                + rounds + " rounds of 20 launches per form");

        byte[] classFile;
        try (InputStream in = Jacobi.class.getResourceAsStream("Jacobi.class")) {
            classFile = in.readAllBytes();
        }
        // the kernel marched along i (the default), then the plain one (marching off)
        System.setProperty("acc4j.march", "gaps=on");
        String marched = unchecked(classFile, "jacobi_marched");
        System.setProperty("acc4j.march", "off");
        String now = unchecked(classFile, "jacobi_now");
        System.clearProperty("acc4j.march");
        List<String[]> texts = new ArrayList<>();
        texts.add(new String[] {"acc4j", now, "jacobi_now"});
        texts.add(new String[] {"acc4j+cs", now.replace("st.global.f64", "st.global.cs.f64"), "jacobi_now"});
        texts.add(new String[] {"acc4j+L2", now.replace("ld.global.nc.f64", "ld.global.nc.L2::256B.f64"),
            "jacobi_now"});
        texts.add(new String[] {"marched", marched, "jacobi_marched"});
        texts.add(new String[] {"baseline", resource("jacobi-baseline.ptx"), "jacobi_baseline"});
        texts.add(new String[] {"hand", resource("jacobi-hand.ptx"), "jacobi"});
        List<Form> forms = new ArrayList<>();
        for (String[] t : texts) {
            CUmodule m = new CUmodule();
            JCudaDriver.cuModuleLoadData(m, (t[1] + "\0").getBytes(StandardCharsets.US_ASCII));
            CUfunction f = new CUfunction();
            JCudaDriver.cuModuleGetFunction(f, m, t[2]);
            boolean hand = t[0].equals("hand");
            if (t[0].equals("marched")) {
                for (int bx : new int[] {128, 64, 256}) {
                    forms.add(new Form(t[0] + " " + bx + "x1", f, false, true, bx, 1));
                }
                continue;
            }
            forms.add(new Form(t[0] + " 32x8", f, hand, false, 32, 8));
            forms.add(new Form(t[0] + " 128x2", f, hand, false, 128, 2));
        }

        Random random = new Random(2013);
        double[] src = new double[n * n];
        for (int i = 0; i < src.length; i++) {
            src[i] = random.nextDouble();
        }
        double[] expected = new double[n * n];
        sweepPlain(src, expected, n);
        long bytes = 8L * n * n;
        CUdeviceptr dSrc = new CUdeviceptr();
        CUdeviceptr dDst = new CUdeviceptr();
        CUdeviceptr dErr = new CUdeviceptr();
        JCudaDriver.cuMemAlloc(dSrc, bytes);
        JCudaDriver.cuMemAlloc(dDst, bytes);
        JCudaDriver.cuMemAlloc(dErr, 64);
        JCudaDriver.cuMemcpyHtoD(dSrc, Pointer.to(src), bytes);
        double[] got = new double[n * n];
        boolean allRight = true;
        for (Form f : forms) {
            JCudaDriver.cuMemsetD8(dDst, (byte) 0, bytes);
            JCudaDriver.cuMemsetD8(dErr, (byte) 0, 64);
            launch(f, dErr, dSrc, dDst, n);
            JCudaDriver.cuCtxSynchronize();
            JCudaDriver.cuMemcpyDtoH(Pointer.to(got), dDst, bytes);
            int bad = 0;
            for (int i = 0; i < got.length; i++) {
                if (Double.doubleToRawLongBits(got[i]) != Double.doubleToRawLongBits(expected[i])) {
                    bad++;
                }
            }
            allRight &= bad == 0;
            System.out.println(f.name() + ": " + (bad == 0 ? "every element as plain Java" : bad + " elements differ"));
        }

        CUevent start = new CUevent();
        CUevent stop = new CUevent();
        JCudaDriver.cuEventCreate(start, 0);
        JCudaDriver.cuEventCreate(stop, 0);
        double[][] ms = new double[forms.size()][rounds];
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < forms.size(); i++) {
            order.add(i);
        }
        Random shuffle = new Random(17);
        float[] t = new float[1];
        double[] one = new double[20];
        for (int r = -2; r < rounds; r++) {
            java.util.Collections.shuffle(order, shuffle);
            for (int i : order) {
                for (int k = 0; k < one.length; k++) {
                    JCudaDriver.cuEventRecord(start, null);
                    launch(forms.get(i), dErr, dSrc, dDst, n);
                    JCudaDriver.cuEventRecord(stop, null);
                    JCudaDriver.cuEventSynchronize(stop);
                    JCudaDriver.cuEventElapsedTime(t, start, stop);
                    one[k] = t[0];
                }
                if (r >= 0) {
                    ms[i][r] = PairedStats.median(one);
                }
            }
        }
        int hand = -1;
        for (int i = 0; i < forms.size(); i++) {
            if (forms.get(i).hand() && hand < 0) {
                hand = i;
            }
        }
        System.out.println();
        System.out.println("| form | median ms | GB/s | hand / form, median of rounds [95% interval] |");
        System.out.println("| --- | ---: | ---: | --- |");
        for (int i = 0; i < forms.size(); i++) {
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratio[r] = ms[hand][r] / ms[i][r];
            }
            PairedStats.Interval ci = PairedStats.medianInterval(ratio);
            double m = PairedStats.median(ms[i]);
            System.out.println(String.format(Locale.ROOT, "| %s | %.4f | %.0f | %.3f [%.3f, %.3f] |", forms.get(i).name(),
                    m, 2.0 * bytes / m / 1e6, ci.median(), ci.low(), ci.high()));
        }
        System.out.println(allRight ? "check: every form gives plain Java's bits" : "check FAILED");
        JCudaDriver.cuMemFree(dSrc);
        JCudaDriver.cuMemFree(dDst);
        JCudaDriver.cuMemFree(dErr);
        JCudaDriver.cuCtxDestroy(context);
    }

    private static void launch(Form f, CUdeviceptr err, CUdeviceptr src, CUdeviceptr dst, int n) {
        Pointer params;
        int gx;
        int gy;
        if (f.hand()) {
            params = Pointer.to(Pointer.to(src), Pointer.to(dst), Pointer.to(new int[] {n}));
            gx = (n + f.bx() - 1) / f.bx();
            gy = (n + f.by() - 1) / f.by();
        } else {
            int len = n * n;
            params = Pointer.to(Pointer.to(err), Pointer.to(dst), Pointer.to(new int[] {len}), Pointer.to(src),
                    Pointer.to(new int[] {len}), Pointer.to(new int[] {n}), Pointer.to(new int[] {n}));
            gx = (n - 2 + f.bx() - 1) / f.bx();
            // a marched kernel's threads each walk a chunk of rows: one block row per chunk
            gy = f.marched() ? (n - 2 + chunk - 1) / chunk : (n - 2 + f.by() - 1) / f.by();
        }
        JCudaDriver.cuLaunchKernel(f.function(), gx, gy, 1, f.bx(), f.by(), 1, 0, null, params, null);
    }

    private static void sweepPlain(double[] src, double[] dst, int n) {
        for (int i = 1; i < n - 1; i++) {
            for (int j = 1; j < n - 1; j++) {
                dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1]
                        + src[i * n + j + 1]);
            }
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = JacobiKernels.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }
}
