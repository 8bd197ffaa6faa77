package org.acc4j.runtime.transfer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.Driver;
import org.acc4j.runtime.transfer.StagedCopy.Settings;

/**
 * Staging settings compared in paired, interleaved rounds in one process, on the GPU. Each variant (a value of
 * {@code -Dacc4j.staging} over the defaults, or {@code default}) gets a {@link StagedCopy} of its own; per size, each
 * round visits the variants in a fresh random order, and for each makes a staged copy to the device and one back (as
 * a call's copy in and copy out), then a pinned {@code cuMemcpyHtoD} and {@code DtoH} of the same size, so that every
 * staged copy has a pinned peer timed a moment apart. Before a variant's turn the other variants' staging threads have fallen asleep
 * (a pause longer than their spin), and its own are roused as the runtime rouses them when it allocates ({@link
 * StagedCopy#expect}). Printed per size and variant: the median ratio to pinned (pinned time over staged time) with
 * the distribution-free 95 % interval of the median, each direction; and against the first variant, the median of
 * the per-round quotients of their ratios with its interval: above 1 where the variant is faster. Every variant's
 * copies are checked element for element after the rounds.
 *
 * <p>Run on the GPU machine: {@code bash .gpu/on-gpu.sh -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar"
 * org.acc4j.runtime.transfer.TransferPairs [--sizes 8,16,32,64] [--rounds 21] [--back-to-back] default
 * "spin=1000" ...} (sizes in MiB). With {@code --back-to-back} a variant's two copies of a round follow an untimed
 * one with no pause: its staging threads are awake, as in a loop of copies.
 */
public final class TransferPairs {
    private static final long MIB = 1L << 20;

    private TransferPairs() {
    }

    public static void main(String[] args) throws Exception {
        long[] sizes = {8, 16, 32, 64};
        int rounds = 21;
        boolean backToBack = false;
        List<String> specs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).mapToLong(Long::parseLong).toArray();
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--back-to-back" -> backToBack = true;
                default -> specs.add(args[i]);
            }
        }
        if (specs.isEmpty()) {
            specs.add("default");
        }
        List<Settings> settings = new ArrayList<>();
        for (String s : specs) {
            settings.add(s.equals("default") ? Settings.DEFAULT : Settings.parse(s, Settings.DEFAULT));
        }
        List<Device> devices;
        try {
            devices = Device.all();
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            devices = List.of();
        }
        if (devices.isEmpty()) {
            System.out.println("no CUDA device: nothing to compare (settings parsed: " + specs + ")");
            return;
        }
        Context context = Context.open(Device.all().get(0));
        List<StagedCopy<DeviceBuffer>> copies = new ArrayList<>();
        try {
            System.out.printf(Locale.ROOT, "device: %s; host: %d cores; %d rounds%s; write-back %s%n",
                    Device.all().get(0).name(), Runtime.getRuntime().availableProcessors(), rounds,
                    backToBack ? ", back to back" : ", staging threads roused before each turn",
                    Writeback.available() ? "available" : "does nothing here: " + Writeback.missing());
            long pauseMicros = 500;
            for (Settings s : settings) {
                copies.add(new StagedCopy<>(s, CudaLane::open, CudaLane::openWriteCombined));
                pauseMicros = Math.max(pauseMicros, s.spinMicros() + 500);
            }
            for (int v = 0; v < specs.size(); v++) {
                System.out.println("variant " + v + ": " + specs.get(v));
            }
            System.out.println();
            System.out.println("| MiB | variant | to device / pinned | 95% | to host / pinned | 95% | to device vs 0 | 95% "
                    + "| to host vs 0 | 95% | pinned H2D GB/s | pinned D2H GB/s |");
            System.out.println("| ---: | --- | ---: | --- | ---: | --- | ---: | --- | ---: | --- | ---: | ---: |");
            for (long mib : sizes) {
                size(context, copies, specs, mib, rounds, backToBack, pauseMicros);
            }
        } finally {
            for (StagedCopy<DeviceBuffer> c : copies) {
                c.close();
            }
            context.close();
        }
    }

    private static void size(Context context, List<StagedCopy<DeviceBuffer>> copies, List<String> specs, long mib,
                             int rounds, boolean backToBack, long pauseMicros) throws InterruptedException {
        long bytes = mib * MIB;
        int n = copies.size();
        double[] a = new double[(int) (bytes / 8)];
        Random random = new Random(mib);
        for (int i = 0; i < a.length; i++) {
            a[i] = random.nextDouble();
        }
        double[] back = new double[a.length];
        context.makeCurrent();
        CUdeviceptr raw = new CUdeviceptr();
        Pointer pinned = new Pointer();
        check(JCudaDriver.cuMemAlloc(raw, bytes), "cuMemAlloc");
        check(JCudaDriver.cuMemHostAlloc(pinned, bytes, 0), "cuMemHostAlloc");
        double[][] in = new double[n][rounds];
        double[][] out = new double[n][rounds];
        double[] pinIn = new double[rounds];
        double[] pinOut = new double[rounds];
        try (DeviceBuffer device = DeviceBuffer.allocate(bytes, "the paired rounds")) {
            for (StagedCopy<DeviceBuffer> c : copies) {
                // lanes opened, code compiled
                for (int i = 0; i < 3; i++) {
                    require(c.toDevice(a, device));
                    require(c.toHost(device, back));
                }
            }
            for (int r = 0; r < rounds; r++) {
                int[] order = order(n, random);
                for (int v : order) {
                    StagedCopy<DeviceBuffer> c = copies.get(v);
                    pause(pauseMicros);
                    if (backToBack) {
                        require(c.toDevice(a, device));
                    } else {
                        c.expect(bytes);
                    }
                    // the staged pair first, as a call's copy in and copy back; then their pinned peers
                    long t0 = System.nanoTime();
                    require(c.toDevice(a, device));
                    long t1 = System.nanoTime();
                    require(c.toHost(device, back));
                    long t2 = System.nanoTime();
                    check(JCudaDriver.cuMemcpyHtoD(raw, pinned, bytes), "H2D");
                    long t3 = System.nanoTime();
                    check(JCudaDriver.cuMemcpyDtoH(pinned, raw, bytes), "D2H");
                    long t4 = System.nanoTime();
                    in[v][r] = (t3 - t2) / (double) (t1 - t0);
                    out[v][r] = (t4 - t3) / (double) (t2 - t1);
                    pinIn[r] = bytes / (double) (t3 - t2);
                    pinOut[r] = bytes / (double) (t4 - t3);
                }
            }
            for (int v = 0; v < n; v++) {
                Arrays.fill(back, 0);
                require(copies.get(v).toDevice(a, device));
                require(copies.get(v).toHost(device, back));
                for (int i = 0; i < a.length; i++) {
                    if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(back[i])) {
                        throw new IllegalStateException("variant " + specs.get(v) + " at " + mib + " MiB: element " + i
                                + " came back as " + back[i] + ", not " + a[i]);
                    }
                }
            }
        } finally {
            check(JCudaDriver.cuMemFreeHost(pinned), "cuMemFreeHost");
            check(JCudaDriver.cuMemFree(raw), "cuMemFree");
        }
        for (int v = 0; v < n; v++) {
            double[] qi = new double[rounds];
            double[] qo = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                qi[r] = in[v][r] / in[0][r];
                qo[r] = out[v][r] / out[0][r];
            }
            System.out.printf(Locale.ROOT, "| %d | %d | %.3f | %s | %.3f | %s | %s | %s | %s | %s | %.1f | %.1f |%n", mib, v,
                    median(in[v]), interval(in[v]), median(out[v]), interval(out[v]),
                    v == 0 ? "1" : String.format(Locale.ROOT, "%.3f", median(qi)), v == 0 ? "" : interval(qi),
                    v == 0 ? "1" : String.format(Locale.ROOT, "%.3f", median(qo)), v == 0 ? "" : interval(qo),
                    median(pinIn), median(pinOut));
        }
    }

    /** The median of {@code values} (the mean of the two middle ones for an even count). */
    static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /**
     * The distribution-free interval of the median of at least 95 % coverage, from order statistics: the k-th
     * smallest and the k-th largest, k the largest rank whose binomial tail stays within 2.5 % (the whole range when
     * there are too few values).
     */
    static String interval(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int k = lowerRank(s.length);
        return String.format(Locale.ROOT, "%.3f-%.3f", s[k], s[s.length - 1 - k]);
    }

    /** The 0-based rank k of the lower end: P(Binomial(n, 1/2) <= k) stays within 2.5 %. */
    static int lowerRank(int n) {
        double tail = 0;
        int k = -1;
        for (int i = 0; i < n / 2; i++) {
            tail += Math.exp(logChoose(n, i) - n * Math.log(2));
            if (tail > 0.025) {
                break;
            }
            k = i;
        }
        return Math.max(0, k);
    }

    private static double logChoose(int n, int k) {
        double s = 0;
        for (int i = 0; i < k; i++) {
            s += Math.log(n - i) - Math.log(i + 1);
        }
        return s;
    }

    private static int[] order(int n, Random random) {
        int[] o = new int[n];
        for (int i = 0; i < n; i++) {
            o[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = o[i];
            o[i] = o[j];
            o[j] = t;
        }
        return o;
    }

    private static void pause(long micros) throws InterruptedException {
        long end = System.nanoTime() + micros * 1000;
        while (System.nanoTime() < end) {
            Thread.sleep(0, 200_000);
        }
    }

    private static void require(boolean staged) {
        if (!staged) {
            throw new IllegalStateException("the copy was not staged");
        }
    }

    private static void check(int result, String call) {
        Driver.check(result, call, "the paired transfer rounds");
    }
}
