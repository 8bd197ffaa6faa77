package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.cuda.KernelArgs;
import org.acc4j.templates.MathLibrary;
import org.acc4j.templates.MathLibrary.Routine;
import org.acc4j.templates.math.AccMath;
import org.acc4j.templates.math.Inputs;
import org.acc4j.templates.math.Inputs.Kind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * The PTX math routines on the GPU: for every routine (double and float), a kernel applies it to 2^20 seeded
 * inputs (the generator of the host tests, {@link Inputs}) and every result must have the bits of
 * {@link AccMath}, the host mirror (NaNs compared as Java compares them). Every output element must be written.
 * Prints, per routine, the largest distance to StrictMath in ulps. Skips, saying why, where there is no CUDA
 * device.
 */
@Tag("gpu")
class MathFunctionsGpuTest {
    private static final int N = 1 << 20;
    private static final long SEED = 0x5EED_ACC4L;
    private static final int BLOCK = 256;
    /** Signalling NaNs no routine makes: what an element still holds if no thread wrote it. */
    private static final long UNWRITTEN = 0x7FF0_DEAD_BEEF_0001L;
    private static final int UNWRITTEN_F = 0x7FA0_BEEF;

    private static Context context;
    private static org.acc4j.runtime.cuda.Module module;

    @BeforeAll
    static void open() {
        try {
            List<Device> devices = Device.all();
            if (!devices.isEmpty()) {
                context = Context.open(devices.get(0));
                module = org.acc4j.runtime.cuda.Module.load(module(target(devices.get(0)), MathLibrary.all()),
                        "math routine tests");
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

    /** sm_90 PTX runs on newer devices through the driver's JIT; older devices get their own target. */
    private static String target(Device d) {
        return d.computeMajor() * 10 + d.computeMinor() >= 90 ? "sm_90" : d.smTarget();
    }

    /** The module: header, the routines with their helpers, one kernel per routine. */
    static String module(String target, List<Routine> routines) {
        StringBuilder m = new StringBuilder(".version 7.8\n.target " + target + "\n.address_size 64\n\n");
        m.append(MathLibrary.moduleText(routines));
        for (Routine r : routines) {
            m.append('\n').append(kernel(r));
        }
        return m.toString();
    }

    /** out[i] = routine(in[i]) (or routine(in[i], in2[i]) for pow) for i < n. */
    static String kernel(Routine r) {
        String t = r.ptxType();
        String reg = r.f64() ? "%fd" : "%f";
        boolean two = r.function().arity() == 2;
        StringBuilder k = new StringBuilder();
        k.append(".visible .entry ").append(entry(r))
                .append("(.param .u64 out, .param .u64 in, .param .u64 in2, .param .u32 n)\n{\n");
        k.append("    .reg .pred %p<2>;\n    .reg .b32 %r<6>;\n    .reg .b64 %rd<12>;\n");
        k.append("    .reg .").append(t).append(' ').append(reg).append("<4>;\n");
        k.append("    ld.param.u64 %rd1, [out];\n    ld.param.u64 %rd2, [in];\n    ld.param.u64 %rd3, [in2];\n");
        k.append("    ld.param.u32 %r4, [n];\n");
        k.append("    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n");
        k.append("    mad.lo.s32 %r1, %r2, %r3, %r1;\n    setp.ge.u32 %p1, %r1, %r4;\n    @%p1 bra $done;\n");
        k.append("    mul.wide.u32 %rd4, %r1, ").append(r.f64() ? 8 : 4).append(";\n");
        k.append("    cvta.to.global.u64 %rd5, %rd2;\n    add.s64 %rd6, %rd5, %rd4;\n");
        k.append("    ld.global.").append(t).append(' ').append(reg).append("1, [%rd6];\n");
        if (two) {
            k.append("    cvta.to.global.u64 %rd7, %rd3;\n    add.s64 %rd8, %rd7, %rd4;\n");
            k.append("    ld.global.").append(t).append(' ').append(reg).append("2, [%rd8];\n");
        }
        k.append("    {\n        .param .").append(t).append(" a0;\n");
        if (two) {
            k.append("        .param .").append(t).append(" a1;\n");
        }
        k.append("        .param .").append(t).append(" r0;\n");
        k.append("        st.param.").append(t).append(" [a0], ").append(reg).append("1;\n");
        if (two) {
            k.append("        st.param.").append(t).append(" [a1], ").append(reg).append("2;\n");
        }
        k.append("        call.uni (r0), ").append(r.symbol()).append(two ? ", (a0, a1);\n" : ", (a0);\n");
        k.append("        ld.param.").append(t).append(' ').append(reg).append("3, [r0];\n    }\n");
        k.append("    cvta.to.global.u64 %rd9, %rd1;\n    add.s64 %rd10, %rd9, %rd4;\n");
        k.append("    st.global.").append(t).append(" [%rd10], ").append(reg).append("3;\n");
        k.append("$done:\n    ret;\n}\n");
        return k.toString();
    }

    private static String entry(Routine r) {
        return "test_" + r.symbol();
    }

    @TestFactory
    List<DynamicTest> everyRoutineMatchesItsJavaMirrorBitForBit() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Routine r : MathLibrary.all()) {
            tests.add(DynamicTest.dynamicTest(r.symbol(), () -> {
                assumeTrue(context != null && module != null,
                        "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
                context.makeCurrent();
                if (r.f64()) {
                    checkDoubles(r);
                } else {
                    checkFloats(r);
                }
            }));
        }
        return tests;
    }

    private static Kind kind(Routine r) {
        return Kind.valueOf(r.function().name());
    }

    /** Runs the routine's kernel over inputs of {@code bytes} bytes each, filling {@code out} (pre-set to UNWRITTEN). */
    private static float launch(Routine r, Object in, Object in2, Object out, long bytes) {
        Function f = module.function(entry(r));
        try (DeviceBuffer dIn = DeviceBuffer.allocate(bytes, r.symbol() + " input");
             DeviceBuffer dIn2 = DeviceBuffer.allocate(bytes, r.symbol() + " second input");
             DeviceBuffer dOut = DeviceBuffer.allocate(bytes, r.symbol() + " output")) {
            dIn.copyFromHost(in);
            dIn2.copyFromHost(in2);
            dOut.copyFromHost(out);
            KernelArgs args = new KernelArgs().addPointer(dOut).addPointer(dIn).addPointer(dIn2).addInt(N);
            long t0 = System.nanoTime();
            f.launch((N + BLOCK - 1) / BLOCK, BLOCK, 0, args, r.symbol() + " on " + N + " inputs");
            context.synchronize("kernel " + entry(r));
            float ms = (System.nanoTime() - t0) / 1e6f;
            dOut.copyToHost(out);
            return ms;
        }
    }

    private static void checkDoubles(Routine r) {
        double[] xs = Inputs.doubles(kind(r), N, SEED);
        double[] ys = r.function().arity() == 2 ? Inputs.seconds(kind(r), N, SEED) : xs.clone();
        double[] out = new double[N];
        java.util.Arrays.fill(out, Double.longBitsToDouble(UNWRITTEN));
        float ms = launch(r, xs, ys, out, 8L * N);
        double maxUlps = 0;
        String worst = "none";
        for (int i = 0; i < N; i++) {
            double x = xs[i];
            double y = ys[i];
            double gpu = out[i];
            if (Double.doubleToRawLongBits(gpu) == UNWRITTEN && Double.doubleToRawLongBits(x) != UNWRITTEN) {
                fail(r.symbol() + ": element " + i + " was not written");
            }
            double host = mirror(r, x, y);
            if (Double.doubleToLongBits(host) != Double.doubleToLongBits(gpu)) {
                assertEquals(host, gpu, r.symbol() + "(" + Double.toHexString(x)
                        + (r.function().arity() == 2 ? ", " + Double.toHexString(y) : "") + ") on the GPU");
            }
            double strict = strict(r, x, y);
            if (Double.isFinite(strict) && Double.isFinite(gpu) && gpu != strict) {
                double d = Math.abs(gpu - strict) / Math.ulp(strict);
                if (d > maxUlps) {
                    maxUlps = d;
                    worst = Double.toHexString(x) + (r.function().arity() == 2 ? ", " + Double.toHexString(y) : "");
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s: %d GPU results bit-identical to AccMath in %.2f ms;"
                + " max distance to StrictMath %.2f ulp (at %s)%n", r.symbol(), N, ms, maxUlps, worst);
    }

    private static void checkFloats(Routine r) {
        float[] xs = Inputs.floats(kind(r), N, SEED);
        float[] ys = r.function().arity() == 2 ? Inputs.powExponentsFloat(N, SEED) : xs.clone();
        float[] out = new float[N];
        java.util.Arrays.fill(out, Float.intBitsToFloat(UNWRITTEN_F));
        float ms = launch(r, xs, ys, out, 4L * N);
        double maxUlps = 0;
        String worst = "none";
        for (int i = 0; i < N; i++) {
            float x = xs[i];
            float y = ys[i];
            float gpu = out[i];
            if (Float.floatToRawIntBits(gpu) == UNWRITTEN_F && Float.floatToRawIntBits(x) != UNWRITTEN_F) {
                fail(r.symbol() + ": element " + i + " was not written");
            }
            float host = (float) mirror(r, x, y);
            if (Float.floatToIntBits(host) != Float.floatToIntBits(gpu)) {
                assertEquals(host, gpu, r.symbol() + "(" + x + (r.function().arity() == 2 ? ", " + y : "")
                        + ") on the GPU");
            }
            float strict = (float) strict(r, x, y);
            if (Float.isFinite(strict) && Float.isFinite(gpu) && gpu != strict) {
                double d = Math.abs((double) gpu - strict) / Math.ulp(strict);
                if (d > maxUlps) {
                    maxUlps = d;
                    worst = x + (r.function().arity() == 2 ? ", " + y : "");
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s: %d GPU results bit-identical to AccMath in %.2f ms;"
                + " max distance to (float) StrictMath %.2f ulp (at %s)%n", r.symbol(), N, ms, maxUlps, worst);
    }

    /** The host mirror; float routines are called with float arguments and their result widened. */
    private static double mirror(Routine r, double x, double y) {
        return org.acc4j.templates.math.Mirrors.mirror(r, x, y);
    }

    private static double strict(Routine r, double x, double y) {
        return org.acc4j.templates.math.Mirrors.strict(r.function(), x, y);
    }
}
