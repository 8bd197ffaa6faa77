package org.acc4j.runtime.transfer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.Driver;
import org.acc4j.runtime.cuda.Event;
import org.acc4j.runtime.transfer.Harness.Op;
import org.acc4j.runtime.transfer.StagedCopy.Settings;

/**
 * Where the time of a staged copy goes, on the GPU, per size (MiB, default 8 and 32) and direction, all in one
 * process against the same pinned peer:
 * <ol>
 *   <li>the pinned peer ({@code cuMemcpyHtoD}/{@code DtoH} from {@code cuMemHostAlloc} memory) and the runtime's
 *       {@code Acc.copyin}, {@code copyout}, {@code updateDevice}, {@code updateHost} (medians, with their ratios);</li>
 *   <li>a {@link StagedCopy} of the staging settings in force ({@code -Dacc4j.staging}) called directly, back to back
 *       and after a pause of 5 ms (its staging threads asleep);</li>
 *   <li>its host side alone (the same pipeline over a lane whose device copies do nothing) and its device side alone
 *       (the same chunks between the lane's slots and the device, with no host copy);</li>
 *   <li>the timeline of the median of several traced copies ({@link Trace}), with the device copies timed by events
 *       of their own on the lane's stream: when each helper woke, each chunk's host copy (first piece to last), its
 *       device copy queued, run and seen landed, and the device's idle gaps.</li>
 * </ol>
 * Every copy is checked element for element. Run on the GPU machine:
 * {@code bash .gpu/on-gpu.sh -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar"
 * org.acc4j.runtime.transfer.TransferTimeline [8,32]}.
 */
public final class TransferTimeline {
    private static final long MIB = 1L << 20;
    private static final int REPS = 31;

    private TransferTimeline() {
    }

    public static void main(String[] args) throws Exception {
        long[] sizes = args.length > 0 ? Harness.longs(args[0]) : new long[] {8, 32};
        Acc.install(AccRuntime.get().backend());
        Acc.init();
        if (!AccRuntime.get().onDevice()) {
            System.out.println("no CUDA device: the timeline of fake lanes only, to check the probe itself");
            fake(sizes);
            return;
        }
        Settings settings = Settings.fromEnvironment(System.out::println);
        Context context = Context.open(Device.all().get(0));
        try {
            Harness.printSetup(Device.all().get(0).name(), settings);
            for (long mib : sizes) {
                size(context, settings, mib);
            }
        } finally {
            Acc.shutdown();
            context.close();
        }
    }

    private static void size(Context context, Settings settings, long mib) {
        long bytes = mib * MIB;
        double[] a = new double[(int) (bytes / 8)];
        Random r = new Random(mib);
        for (int i = 0; i < a.length; i++) {
            a[i] = r.nextDouble();
        }
        double[] back = new double[a.length];
        System.out.printf(Locale.ROOT, "%n## %d MiB%n%n", mib);
        // warm the runtime's path
        for (int i = 0; i < 5; i++) {
            Acc.copyin(a);
            Acc.updateHost(a);
            Acc.copyout(a);
        }
        double copyin = micros(null, () -> Acc.copyin(a), () -> Acc.delete(a));
        double copyout = micros(() -> Acc.copyin(a), () -> Acc.copyout(a), null);
        Acc.copyin(a);
        double updateDevice = micros(null, () -> Acc.updateDevice(a), null);
        double updateHost = micros(null, () -> Acc.updateHost(a), null);
        double updateDeviceCold = micros(TransferTimeline::pause, () -> Acc.updateDevice(a), null);
        Acc.delete(a);
        double copyinCold = micros(TransferTimeline::pause, () -> Acc.copyin(a), () -> Acc.delete(a));
        context.makeCurrent();

        CUdeviceptr raw = new CUdeviceptr();
        Pointer pinned = new Pointer();
        check(JCudaDriver.cuMemAlloc(raw, bytes), "cuMemAlloc");
        check(JCudaDriver.cuMemHostAlloc(pinned, bytes, 0), "cuMemHostAlloc");
        double pinnedIn = micros(null, () -> check(JCudaDriver.cuMemcpyHtoD(raw, pinned, bytes), "H2D"), null);
        double pinnedOut = micros(null, () -> check(JCudaDriver.cuMemcpyDtoH(pinned, raw, bytes), "D2H"), null);
        check(JCudaDriver.cuMemFreeHost(pinned), "cuMemFreeHost");
        Pointer combined = new Pointer();
        check(JCudaDriver.cuMemHostAlloc(combined, bytes, JCudaDriver.CU_MEMHOSTALLOC_WRITECOMBINED), "cuMemHostAlloc");
        double combinedIn = micros(null, () -> check(JCudaDriver.cuMemcpyHtoD(raw, combined, bytes), "H2D"), null);
        check(JCudaDriver.cuMemFreeHost(combined), "cuMemFreeHost");
        check(JCudaDriver.cuMemFree(raw), "cuMemFree");

        Harness.header(1, "step", "us", "GB/s", "ratio to pinned");
        row("pinned H2D", bytes, pinnedIn, pinnedIn);
        row("pinned D2H", bytes, pinnedOut, pinnedOut);
        row("pinned write-combined H2D", bytes, combinedIn, pinnedIn);
        row("Acc.copyin", bytes, copyin, pinnedIn);
        row("Acc.copyout", bytes, copyout, pinnedOut);
        row("Acc.updateDevice", bytes, updateDevice, pinnedIn);
        row("Acc.updateHost", bytes, updateHost, pinnedOut);
        row("Acc.copyin, after 5 ms idle", bytes, copyinCold, pinnedIn);
        row("Acc.updateDevice, after 5 ms idle", bytes, updateDeviceCold, pinnedIn);

        List<TimingLane> opened = new ArrayList<>();
        List<TimingLane> openedCombined = new ArrayList<>();
        try (DeviceBuffer device = DeviceBuffer.allocate(bytes, "the timeline");
             StagedCopy<DeviceBuffer> staged = new StagedCopy<>(settings, (b, s) -> {
                 TimingLane lane = new TimingLane(CudaLane.open(b, s));
                 opened.add(lane);
                 return lane;
             }, (b, s) -> {
                 TimingLane lane = new TimingLane(CudaLane.openWriteCombined(b, s));
                 openedCombined.add(lane);
                 return lane;
             });
             StagedCopy<DeviceBuffer> hostOnly = new StagedCopy<>(settings,
                     (b, s) -> new NoDeviceLane(CudaLane.open(b, s)),
                     (b, s) -> new NoDeviceLane(CudaLane.openWriteCombined(b, s)))) {
            double in = micros(null, () -> Harness.require(staged.toDevice(a, device)), null);
            double out = micros(null, () -> Harness.require(staged.toHost(device, back)), null);
            Harness.verify(a, back, "staged copies");
            double inCold = micros(TransferTimeline::pause, () -> Harness.require(staged.toDevice(a, device)), null);
            double outCold = micros(TransferTimeline::pause, () -> Harness.require(staged.toHost(device, back)), null);
            Harness.verify(a, back, "staged copies after a pause");
            double hostIn = micros(null, () -> Harness.require(hostOnly.toDevice(a, device)), null);
            double hostOut = micros(null, () -> Harness.require(hostOnly.toHost(device, back)), null);
            Plan plan = staged.plan(8, a.length);
            TimingLane lane = opened.get(0);
            TimingLane laneIn = openedCombined.isEmpty() ? lane : openedCombined.get(0);
            double dmaIn = micros(null, () -> deviceOnly(plan, laneIn, device, true), null);
            double dmaOut = micros(null, () -> deviceOnly(plan, lane, device, false), null);
            row("staged to device", bytes, in, pinnedIn);
            row("staged to host", bytes, out, pinnedOut);
            row("staged to device, after 5 ms idle", bytes, inCold, pinnedIn);
            row("staged to host, after 5 ms idle", bytes, outCold, pinnedOut);
            row("host side alone, to pinned", bytes, hostIn, pinnedIn);
            row("host side alone, from pinned", bytes, hostOut, pinnedOut);
            row("device side alone (same chunks), H2D", bytes, dmaIn, pinnedIn);
            row("device side alone (same chunks), D2H", bytes, dmaOut, pinnedOut);
            System.out.printf(Locale.ROOT, "%nplan: %s; middle pieces of %d KiB%n", plan,
                    plan.pieceElements() * 8L >> 10);
            timeline(staged, laneIn::begin, laneIn::end, () -> Harness.require(staged.toDevice(a, device)), true,
                    staged.plan(8, a.length, true));
            timeline(staged, lane::begin, lane::end, () -> Harness.require(staged.toHost(device, back)), false, plan);
            Harness.verify(a, back, "traced copies");
        }
    }

    /** The timeline of the median of several traced copies ({@code copy}), {@code begin} and {@code end} timing the device side. */
    static void timeline(StagedCopy<?> staged, Runnable begin, java.util.function.Supplier<long[]> end, Runnable copy,
                         boolean in, Plan plan) {
        int runs = 9;
        Trace[] traces = new Trace[runs];
        long[][] gpu = new long[runs][];
        long[] total = new long[runs];
        for (int i = 0; i < runs; i++) {
            Trace t = new Trace(1 << 16);
            staged.trace(t);
            begin.run();
            copy.run();
            staged.trace(null);
            gpu[i] = end.get();
            traces[i] = t;
            total[i] = t.time(t.size() - 1) - t.time(0);
        }
        Integer[] order = new Integer[runs];
        for (int i = 0; i < runs; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compare(total[x], total[y]));
        int m = order[runs / 2];
        Trace t = traces[m];
        long[] g = gpu[m];
        long t0 = t.time(0);
        int chunks = (int) plan.chunks();
        System.out.printf(Locale.ROOT, "%n### %s, traced (median of %d: %.1f us; fastest %.1f, slowest %.1f)%n%n",
                in ? "to the device" : "to the host", runs, total[m] / 1e3, total[order[0]] / 1e3,
                total[order[runs - 1]] / 1e3);
        List<Double> wake = new ArrayList<>();
        long[] queuedAt = new long[t.size()];
        double firstEnter = -1;
        double lastEnter = -1;
        long[] release = filled(chunks);
        long[] firstPiece = filled(chunks);
        long[] lastPiece = filled(chunks);
        long[] queueBegin = filled(chunks);
        long[] queueEnd = filled(chunks);
        long[] landed = filled(chunks);
        int threads = 0;
        for (int i = 0; i < t.size(); i++) {
            threads = Math.max(threads, t.thread(i) + 1);
        }
        long[] busy = new long[threads];
        int[] pieces = new int[threads];
        long[] open = new long[threads];
        int queuedHelpers = 0;
        int entered = 0;
        for (int i = 0; i < t.size(); i++) {
            long at = t.time(i) - t0;
            long arg = t.arg(i);
            switch (t.kind(i)) {
                case HELPER_QUEUED -> queuedAt[queuedHelpers++] = at;
                case HELPER_ENTER -> {
                    if (entered < queuedHelpers) {
                        wake.add((at - queuedAt[entered]) / 1e3);
                    }
                    entered++;
                    firstEnter = firstEnter < 0 ? at / 1e3 : firstEnter;
                    lastEnter = at / 1e3;
                }
                case PIECE_BEGIN -> {
                    int k = (int) plan.chunkOf(arg);
                    firstPiece[k] = firstPiece[k] < 0 ? at : Math.min(firstPiece[k], at);
                    open[t.thread(i)] = at;
                }
                case PIECE_END -> {
                    int k = (int) plan.chunkOf(arg);
                    lastPiece[k] = Math.max(lastPiece[k], at);
                    busy[t.thread(i)] += at - open[t.thread(i)];
                    pieces[t.thread(i)]++;
                }
                case RELEASE -> release[(int) arg] = at;
                case QUEUE_BEGIN -> queueBegin[(int) arg] = at;
                case QUEUE_END -> queueEnd[(int) arg] = at;
                case LANDED -> landed[(int) arg] = at;
                default -> {
                }
            }
        }
        System.out.printf(Locale.ROOT, "lane taken at %.1f us; %d helpers queued, %d entered, first at %.1f us, last"
                        + " at %.1f us; wake (queued to entered) median %.1f us, max %.1f us%n",
                (at(t, Trace.Kind.LANE) - t0) / 1e3, queuedHelpers, entered, firstEnter, lastEnter, median(wake),
                wake.stream().mapToDouble(Double::doubleValue).max().orElse(-1));
        System.out.printf(Locale.ROOT, "pipeline returned at %.1f us, drained (copy returns) at %.1f us%n",
                (at(t, Trace.Kind.PIPELINE_END) - t0) / 1e3, (at(t, Trace.Kind.END) - t0) / 1e3);
        System.out.println();
        Harness.header(0, "chunk", "KiB", "released", "host first piece", "host last piece", "host GB/s", "queue call",
                "queue us", "device start", "device end", "device GB/s", "device idle before", "landed seen");
        double idle = 0;
        double deviceBusy = 0;
        for (int k = 0; k < chunks; k++) {
            long kb = (long) plan.count(k) * 8;
            long gs = g != null && 2 * k + 1 < g.length ? g[2 * k] - t0 : -1;
            long ge = g != null && 2 * k + 1 < g.length ? g[2 * k + 1] - t0 : -1;
            double gap = k == 0 || gs < 0 ? 0 : Math.max(0, gs - (g[2 * k - 1] - t0)) / 1e3;
            idle += gap;
            deviceBusy += (ge - gs) / 1e3;
            System.out.printf(Locale.ROOT, "| %d | %d | %s | %s | %s | %.1f | %s | %.1f | %s | %s | %.1f | %.1f | %s |%n",
                    k, kb >> 10, us(release[k]), us(firstPiece[k]), us(lastPiece[k]),
                    kb / (double) Math.max(1, lastPiece[k] - firstPiece[k]), us(queueBegin[k]),
                    (queueEnd[k] - queueBegin[k]) / 1e3, us(gs), us(ge), gs < 0 ? 0 : kb / (double) Math.max(1, ge - gs), gap,
                    us(landed[k]));
        }
        System.out.printf(Locale.ROOT, "%ndevice busy %.1f us, idle between chunks %.1f us; events dropped %d%n",
                deviceBusy, idle, t.dropped());
        StringBuilder b = new StringBuilder("per thread (pieces, busy us):");
        for (int i = 0; i < threads; i++) {
            b.append(String.format(Locale.ROOT, " %d:%d/%.0f", i, pieces[i], busy[i] / 1e3));
        }
        System.out.println(b);
    }

    /** The timelines of copies over {@link FakeLanes}, whose device copies take a few microseconds each. */
    private static void fake(long[] sizes) {
        Settings settings = Settings.fromEnvironment(System.out::println);
        for (long mib : sizes) {
            double[] a = new double[(int) (mib * MIB / 8)];
            Arrays.setAll(a, i -> i * 0.5);
            double[] back = new double[a.length];
            FakeLanes lanes = new FakeLanes();
            lanes.delayMicros = 5;
            FakeDevice.Bytes device = FakeDevice.bytes(a.length * 8);
            try (StagedCopy<FakeDevice> staged = new StagedCopy<>(settings, lanes)) {
                Plan plan = staged.plan(8, a.length);
                System.out.printf(Locale.ROOT, "%n## %d MiB (fake lanes)%n%nplan: %s%n", mib, plan);
                timeline(staged, () -> { }, () -> null, () -> Harness.require(staged.toDevice(a, device)), true, plan);
                timeline(staged, () -> { }, () -> null, () -> Harness.require(staged.toHost(device, back)), false, plan);
                Harness.verify(a, back, "copies through fake lanes");
            }
        }
    }

    private static long at(Trace t, Trace.Kind kind) {
        for (int i = 0; i < t.size(); i++) {
            if (t.kind(i) == kind) {
                return t.time(i);
            }
        }
        return t.time(0);
    }

    private static long[] filled(int n) {
        long[] v = new long[n];
        Arrays.fill(v, -1);
        return v;
    }

    private static String us(long nanos) {
        return nanos < 0 ? "-" : String.format(Locale.ROOT, "%.1f", nanos / 1e3);
    }

    private static double median(List<Double> v) {
        if (v.isEmpty()) {
            return -1;
        }
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        return s.get(s.size() / 2);
    }

    /** The plan's chunks between the lane's slots and the device, as the pipeline queues them, with no host copy. */
    private static void deviceOnly(Plan plan, Lane<DeviceBuffer> lane, DeviceBuffer device, boolean in) {
        int slots = lane.slots();
        for (long k = 0; k < plan.chunks(); k++) {
            int slot = (int) (k % slots);
            if (k >= slots) {
                lane.await(slot);
            }
            long bytes = (long) plan.count(k) * plan.width();
            long offset = plan.first(k) * plan.width();
            if (in) {
                lane.toDevice(slot, bytes, device, offset);
            } else {
                lane.toHost(device, offset, slot, bytes);
            }
        }
        lane.drain();
    }

    private static void pause() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void row(String step, long bytes, double micros, double pinnedMicros) {
        System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.2f |%n", step, micros, bytes / micros / 1e3,
                pinnedMicros / micros);
    }

    /** Microseconds of {@code op}: the median of {@link #REPS} timed runs after three untimed ones. */
    private static double micros(Op<RuntimeException> before, Op<RuntimeException> op, Op<RuntimeException> after) {
        return Harness.medianNanos(3, REPS, before, op, after) / 1e3;
    }

    private static void check(int result, String call) {
        Driver.check(result, call, "the transfer timeline");
    }

    /**
     * A {@link CudaLane} whose device copies are each bracketed by two timing events on its stream, so that the
     * device's start and end of every copy can be placed on the host's clock: {@link #begin} records a reference
     * event on the idle stream and waits for it, {@link #end} reads the times of the copies since.
     */
    private static final class TimingLane implements Lane<DeviceBuffer> {
        private final CudaLane lane;
        private final Event reference = Event.create("timeline reference");
        private final Event[] marks = new Event[1024];
        private int used;
        private long referenceNanos;
        private boolean on;

        TimingLane(CudaLane lane) {
            this.lane = lane;
            for (int i = 0; i < marks.length; i++) {
                marks[i] = Event.create("timeline mark " + i);
            }
        }

        void begin() {
            reference.record(lane.stream());
            reference.synchronize();
            referenceNanos = System.nanoTime();
            used = 0;
            on = true;
        }

        long[] end() {
            on = false;
            lane.drain();
            long[] at = new long[used];
            for (int i = 0; i < used; i++) {
                at[i] = referenceNanos + Math.round(marks[i].millisSince(reference) * 1e6);
            }
            return at;
        }

        private void mark() {
            if (on && used < marks.length) {
                marks[used++].record(lane.stream());
            }
        }

        @Override
        public int slots() {
            return lane.slots();
        }

        @Override
        public long slotBytes() {
            return lane.slotBytes();
        }

        @Override
        public ByteBuffer host(int slot) {
            return lane.host(slot);
        }

        @Override
        public void toDevice(int slot, long bytes, DeviceBuffer device, long offset) {
            mark();
            lane.toDevice(slot, bytes, device, offset);
            mark();
        }

        @Override
        public void toHost(DeviceBuffer device, long offset, int slot, long bytes) {
            mark();
            lane.toHost(device, offset, slot, bytes);
            mark();
        }

        @Override
        public void await(int slot) {
            lane.await(slot);
        }

        @Override
        public boolean done(int slot) {
            return lane.done(slot);
        }

        @Override
        public void drain() {
            lane.drain();
        }

        @Override
        public void close() {
            for (Event e : marks) {
                e.close();
            }
            reference.close();
            lane.close();
        }

        @Override
        public void abandon() {
            lane.abandon();
        }
    }

    /** A lane over real pinned slots whose device copies do nothing: the host side of a staged copy alone. */
    private static final class NoDeviceLane implements Lane<DeviceBuffer> {
        private final CudaLane lane;

        NoDeviceLane(CudaLane lane) {
            this.lane = lane;
        }

        @Override
        public int slots() {
            return lane.slots();
        }

        @Override
        public long slotBytes() {
            return lane.slotBytes();
        }

        @Override
        public ByteBuffer host(int slot) {
            return lane.host(slot);
        }

        @Override
        public void toDevice(int slot, long bytes, DeviceBuffer device, long offset) {
        }

        @Override
        public void toHost(DeviceBuffer device, long offset, int slot, long bytes) {
        }

        @Override
        public void await(int slot) {
        }

        @Override
        public boolean done(int slot) {
            return true;
        }

        @Override
        public void drain() {
        }

        @Override
        public void close() {
            lane.close();
        }

        @Override
        public void abandon() {
            lane.abandon();
        }
    }
}
