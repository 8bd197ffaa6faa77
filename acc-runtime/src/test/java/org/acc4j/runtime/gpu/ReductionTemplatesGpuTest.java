package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.cuda.KernelArgs;
import org.acc4j.templates.Reductions;
import org.acc4j.templates.Reductions.Kind;
import org.acc4j.templates.Reductions.Op;
import org.acc4j.templates.Reductions.Routine;
import org.acc4j.templates.reduce.TestKernels;
import org.acc4j.templates.reduce.ReduceOrder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * The reduction routines of ptx-templates on the GPU: for every operation and kind, a kernel in which every thread
 * loads its value and calls the routine twice (two reductions one after another, over seeded random values and
 * over values with specials: NaNs with payloads, zeros of both signs, infinities, integer extremes), launched
 * twice on each of several block and grid shapes (3D, not multiples of 32, one block, thousands of blocks). Each
 * result must have exactly the bits of {@link ReduceOrder}, the host mirror, on both launches, and each counter
 * must be back to 0 after each. Prints one line per routine. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class ReductionTemplatesGpuTest {
    private static final long SEED = 0x5EED_4ED0CEL;
    /** What the result holds if no thread wrote it. */
    private static final long UNWRITTEN = 0x7FF0_DEAD_BEEF_0002L;
    /** Block and grid shapes, {block, grid}. */
    private static final int[][][] SHAPES = {
        {{1, 1, 1}, {1, 1, 1}}, {{32, 1, 1}, {1, 1, 1}}, {{100, 1, 1}, {1, 1, 1}}, {{1024, 1, 1}, {1, 1, 1}},
        {{16, 2, 1}, {5, 3, 1}}, {{33, 3, 1}, {4, 2, 3}}, {{7, 5, 3}, {130, 1, 1}}, {{8, 8, 16}, {2, 1, 1}},
        {{96, 1, 1}, {65, 1, 1}}, {{1024, 1, 1}, {65, 1, 1}}, {{40, 1, 1}, {1000, 1, 1}}, {{1, 1, 1}, {3000, 1, 1}},
        {{64, 1, 1}, {100, 100, 1}}, {{256, 1, 1}, {4096, 1, 1}}, {{37, 1, 1}, {2049, 1, 1}},
        {{1024, 1, 1}, {2049, 1, 1}},
    };
    private static final int MOST_BLOCKS = Arrays.stream(SHAPES).mapToInt(s -> threads(s[1])).max().orElseThrow();
    /** A kernel of different types one after another over the same shared slots. */
    private static final List<Routine> MIXED = List.of(new Routine(Op.ADD, Kind.F64), new Routine(Op.MAX, Kind.I32),
            new Routine(Op.MIN, Kind.F32), new Routine(Op.XOR, Kind.I64), new Routine(Op.MUL, Kind.F32));

    private static Context context;
    private static org.acc4j.runtime.cuda.Module module;

    @BeforeAll
    static void open() {
        try {
            List<Device> devices = Device.all();
            if (!devices.isEmpty()) {
                context = Context.open(devices.get(0));
                module = org.acc4j.runtime.cuda.Module.load(module(target(devices.get(0))), "reduction tests");
            }
        } catch (LinkageError | DriverException e) {
            // no driver: every test skips
        }
    }

    @AfterAll
    static void close() {
        if (module != null) {
            module.close();
        }
        if (context != null) {
            context.close();
        }
    }

    private static String target(Device d) {
        return d.computeMajor() * 10 + d.computeMinor() >= 90 ? "sm_90" : d.smTarget();
    }

    /** Header, the routines, a kernel calling each routine twice, the mixed kernel. */
    static String module(String target) {
        StringBuilder m = new StringBuilder(".version 7.8\n.target " + target + "\n.address_size 64\n\n");
        m.append(Reductions.moduleText(Reductions.all()));
        for (Routine r : Reductions.all()) {
            m.append('\n').append(TestKernels.kernel(List.of(r, r)));
        }
        m.append('\n').append(TestKernels.kernel(MIXED));
        return m.toString();
    }

    @TestFactory
    List<DynamicTest> everyRoutineMatchesItsJavaMirrorBitForBit() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Routine r : Reductions.all()) {
            tests.add(DynamicTest.dynamicTest(r.symbol(), () -> {
                assumeTrue(context != null && module != null,
                        "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
                context.makeCurrent();
                SplittableRandom rnd = new SplittableRandom(SEED ^ r.symbol().hashCode());
                float slowest = 0;
                for (int s = 0; s < SHAPES.length; s++) {
                    int n = threads(SHAPES[s][0]) * threads(SHAPES[s][1]);
                    long[][] inputs = {Inputs.random(r, n, rnd), s % 2 == 0 ? Inputs.specials(r, n, rnd)
                        : Inputs.extremes(r.kind(), n, rnd)};
                    slowest = Math.max(slowest, check(List.of(r, r), inputs, SHAPES[s][0], SHAPES[s][1]));
                }
                System.out.printf(Locale.ROOT, "%s: %d shapes (blocks of 1 to 1024 threads, grids of 1 to %d blocks)"
                        + " x 2 launches x 2 calls bit-identical to ReduceOrder, counters back to 0;"
                        + " slowest launch %.2f ms%n", r.symbol(), SHAPES.length, MOST_BLOCKS, slowest);
            }));
        }
        tests.add(DynamicTest.dynamicTest("mixed types in one kernel", () -> {
            assumeTrue(context != null && module != null,
                    "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
            context.makeCurrent();
            SplittableRandom rnd = new SplittableRandom(SEED);
            for (int[][] shape : SHAPES) {
                int n = threads(shape[0]) * threads(shape[1]);
                long[][] inputs = new long[MIXED.size()][];
                for (int c = 0; c < MIXED.size(); c++) {
                    inputs[c] = c % 2 == 0 ? Inputs.random(MIXED.get(c), n, rnd) : Inputs.specials(MIXED.get(c), n, rnd);
                }
                check(MIXED, inputs, shape[0], shape[1]);
            }
            System.out.printf(Locale.ROOT, "%s: %d shapes x 2 launches bit-identical to ReduceOrder%n",
                    TestKernels.entry(MIXED), SHAPES.length);
        }));
        return tests;
    }

    private static int threads(int[] d) {
        return d[0] * d[1] * d[2];
    }

    /** Launches the kernel of {@code calls} twice; every result and counter is checked after each; returns ms. */
    private static float check(List<Routine> calls, long[][] inputs, int[] block, int[] grid) {
        Function f = module.function(TestKernels.entry(calls));
        int n = inputs[0].length;
        int blocks = threads(grid);
        String shape = "block " + Arrays.toString(block) + ", grid " + Arrays.toString(grid);
        List<DeviceBuffer> owned = new ArrayList<>();
        float slowest = 0;
        try {
            KernelArgs args = new KernelArgs();
            DeviceBuffer[] counters = new DeviceBuffer[calls.size()];
            DeviceBuffer[] results = new DeviceBuffer[calls.size()];
            long[] expected = new long[calls.size()];
            for (int c = 0; c < calls.size(); c++) {
                Routine r = calls.get(c);
                int size = r.kind().bytes();
                DeviceBuffer in = track(owned, DeviceBuffer.allocate((long) size * n, r.symbol() + " input " + c));
                DeviceBuffer partials = track(owned, DeviceBuffer.allocate((long) size * blocks, r.symbol() + " partials"));
                counters[c] = track(owned, DeviceBuffer.allocate(4, r.symbol() + " counter"));
                results[c] = track(owned, DeviceBuffer.allocate(size, r.symbol() + " result"));
                in.copyFromHost(size == 8 ? inputs[c] : narrow(inputs[c]));
                counters[c].zero();
                args.addPointer(in).addPointer(partials).addPointer(counters[c]).addPointer(results[c]);
                expected[c] = ReduceOrder.combine(r.op(), r.kind(), inputs[c], block, grid);
            }
            for (int launch = 1; launch <= 2; launch++) {
                for (int c = 0; c < calls.size(); c++) {
                    if (calls.get(c).kind().bytes() == 8) {
                        results[c].copyFromHost(new long[] {UNWRITTEN});
                    } else {
                        results[c].copyFromHost(new int[] {(int) UNWRITTEN});
                    }
                }
                long t0 = System.nanoTime();
                f.launch(grid, block, args, TestKernels.entry(calls) + " on " + shape);
                context.synchronize("kernel " + TestKernels.entry(calls) + " on " + shape);
                slowest = Math.max(slowest, (System.nanoTime() - t0) / 1e6f);
                for (int c = 0; c < calls.size(); c++) {
                    Routine r = calls.get(c);
                    long got;
                    if (r.kind().bytes() == 8) {
                        long[] out = new long[1];
                        results[c].copyToHost(out);
                        got = out[0];
                    } else {
                        int[] out = new int[1];
                        results[c].copyToHost(out);
                        got = out[0] & 0xFFFF_FFFFL;
                    }
                    String what = r.symbol() + " (call " + c + ", launch " + launch + ") on " + shape;
                    assertEquals(hex(expected[c]), hex(got), what + ": the device's bits, the mirror's");
                    int[] counter = new int[1];
                    counters[c].copyToHost(counter);
                    assertEquals(0, counter[0], what + ": counter left at " + counter[0]);
                }
            }
        } finally {
            for (int i = owned.size() - 1; i >= 0; i--) {
                owned.get(i).close();
            }
        }
        return slowest;
    }

    private static DeviceBuffer track(List<DeviceBuffer> owned, DeviceBuffer b) {
        owned.add(b);
        return b;
    }

    private static int[] narrow(long[] bits) {
        int[] out = new int[bits.length];
        for (int i = 0; i < bits.length; i++) {
            out[i] = (int) bits[i];
        }
        return out;
    }

    private static String hex(long bits) {
        return "0x" + Long.toHexString(bits);
    }

    /** Seeded per-thread values, as raw bits (32-bit kinds in the low half). */
    static final class Inputs {
        private Inputs() {
        }

        /** Values that exercise the operation: wrapping sums and products, sparse bits for AND/OR, wide floats. */
        static long[] random(Routine r, int n, SplittableRandom rnd) {
            long[] v = new long[n];
            for (int i = 0; i < n; i++) {
                long x = rnd.nextLong();
                v[i] = switch (r.kind()) {
                    case I32, I64 -> switch (r.op()) {
                        case MUL -> x | 1;
                        case AND -> rnd.nextInt(64) == 0 ? ~(1L << rnd.nextInt(64)) : -1L;
                        case OR -> rnd.nextInt(64) == 0 ? 1L << rnd.nextInt(64) : 0L;
                        default -> x;
                    };
                    case F32 -> Float.floatToRawIntBits((float) wide(r.op(), rnd));
                    case F64 -> Double.doubleToRawLongBits(wide(r.op(), rnd));
                };
                if (r.kind().bytes() == 4) {
                    v[i] &= 0xFFFF_FFFFL;
                }
            }
            return v;
        }

        /** Wide magnitudes of both signs, or factors near 1 for products. */
        private static double wide(Op op, SplittableRandom rnd) {
            double d = (rnd.nextDouble() - 0.5) * Math.scalb(1.0, rnd.nextInt(-40, 40));
            return op == Op.MUL ? 1 + (rnd.nextDouble() - 0.5) / 64 : d;
        }

        /** The random values with about 2% specials: NaNs with payloads, zeros, infinities, subnormals, extremes. */
        static long[] specials(Routine r, int n, SplittableRandom rnd) {
            long[] v = random(r, n, rnd);
            long[] specials = switch (r.kind()) {
                case F64 -> new long[] {0L, Long.MIN_VALUE, 0x7FF0_0000_0000_0000L, 0xFFF0_0000_0000_0000L,
                    0x7FF8_0000_0000_0001L, 0xFFF4_0000_0000_0000L, 1L, 0x7FEF_FFFF_FFFF_FFFFL};
                case F32 -> new long[] {0L, 0x8000_0000L, 0x7F80_0000L, 0xFF80_0000L, 0x7FC0_0001L, 0xFFA0_0000L, 1L,
                    0x7F7F_FFFFL};
                case I32 -> new long[] {0x8000_0000L, 0x7FFF_FFFFL, 0xFFFF_FFFFL, 0L};
                case I64 -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L};
            };
            int count = 1 + n / 50;
            for (int i = 0; i < count; i++) {
                v[rnd.nextInt(n)] = specials[rnd.nextInt(specials.length)];
            }
            return v;
        }

        /** Only zeros of both signs (floats), so signed zeros decide; only extremes (integers), so sums overflow. */
        static long[] extremes(Kind k, int n, SplittableRandom rnd) {
            long[] v = new long[n];
            boolean negativeOnly = rnd.nextBoolean();
            for (int i = 0; i < n; i++) {
                v[i] = switch (k) {
                    case F64 -> negativeOnly || rnd.nextBoolean() ? Long.MIN_VALUE : 0L;
                    case F32 -> negativeOnly || rnd.nextBoolean() ? 0x8000_0000L : 0L;
                    case I32 -> rnd.nextBoolean() ? 0x7FFF_FFFFL : 0x8000_0000L | rnd.nextInt(4);
                    case I64 -> rnd.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE | rnd.nextInt(4);
                };
            }
            return v;
        }
    }
}
