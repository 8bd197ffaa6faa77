package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.cuda.LaunchArgs;
import org.acc4j.runtime.cuda.MappedMemory;
import org.acc4j.runtime.cuda.Module;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Mapped pinned memory on the GPU, as the launcher uses it: launch parameters of every width written into one
 * {@link LaunchArgs} and reused launch after launch, and an error record that kernels claim with a compare-and-swap
 * over the link and the host reads after the synchronisation with no copy: the first failing thread's code and
 * detail, never a torn or stale record, and nothing when no thread fails. Also the cubin route of the kernel cache:
 * the driver's linker compiles the same PTX into an image that loads and runs. Skips, saying why, where there is no
 * CUDA device.
 */
@Tag("gpu")
class MappedLaunchGpuTest {
    /** Thread 0 stores the scalars; each thread at or past p_fail claims the record with its number plus one. */
    static final String PTX = ".version 7.0\n"
            + ".target sm_70\n"
            + ".address_size 64\n"
            + "\n"
            + ".visible .entry record_and_store(.param .u64 p_rec, .param .u64 p_out, .param .u32 p_i,"
            + " .param .u64 p_l, .param .f32 p_f, .param .f64 p_d, .param .u32 p_fail)\n"
            + "{\n"
            + "\t.reg .pred %p<4>;\n"
            + "\t.reg .b32 %r<10>;\n"
            + "\t.reg .b64 %rd<10>;\n"
            + "\t.reg .f32 %f<2>;\n"
            + "\t.reg .f64 %fd<2>;\n"
            + "\tld.param.u64 %rd1, [p_rec];\n"
            + "\tld.param.u64 %rd2, [p_out];\n"
            + "\tld.param.u32 %r1, [p_i];\n"
            + "\tld.param.u64 %rd3, [p_l];\n"
            + "\tld.param.f32 %f1, [p_f];\n"
            + "\tld.param.f64 %fd1, [p_d];\n"
            + "\tld.param.u32 %r2, [p_fail];\n"
            + "\tmov.u32 %r3, %ctaid.x;\n"
            + "\tmov.u32 %r4, %ntid.x;\n"
            + "\tmov.u32 %r5, %tid.x;\n"
            + "\tmad.lo.s32 %r6, %r3, %r4, %r5;\n"
            + "\tsetp.ne.s32 %p1, %r6, 0;\n"
            + "\t@%p1 bra CHECK;\n"
            + "\tcvta.to.global.u64 %rd4, %rd2;\n"
            + "\tst.global.u32 [%rd4], %r1;\n"
            + "\tst.global.u64 [%rd4+8], %rd3;\n"
            + "\tst.global.f32 [%rd4+16], %f1;\n"
            + "\tst.global.f64 [%rd4+24], %fd1;\n"
            + "CHECK:\n"
            + "\tsetp.lt.u32 %p2, %r6, %r2;\n"
            + "\t@%p2 bra DONE;\n"
            + "\tadd.s32 %r7, %r6, 1;\n"
            + "\tatom.global.cas.b32 %r8, [%rd1], 0, %r7;\n"
            + "\tsetp.ne.s32 %p3, %r8, 0;\n"
            + "\t@%p3 bra DONE;\n"
            + "\tcvt.u64.u32 %rd5, %r6;\n"
            + "\tst.global.u64 [%rd1+8], %rd5;\n"
            + "DONE:\n"
            + "\tret;\n"
            + "}\n"
            + "";

    @Test
    void parametersAndErrorRecordGoThroughMappedMemory() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        assumeTrue(Device.all().get(0).canMapHostMemory(), "this device cannot map host memory");
        Context context = Context.open(Device.all().get(0));
        try (Module ptxModule = Module.load(PTX, "the mapped-memory test");
             Module cubinModule = Module.loadImage(Module.compile(PTX, "the mapped-memory test (cubin)"),
                     "the mapped-memory test (cubin)");
             MappedMemory mapped = MappedMemory.allocate(4096, "the mapped-memory test");
             DeviceBuffer out = DeviceBuffer.allocate(32, "the test's output")) {
            Random r = new Random(2026);
            ByteBuffer record = mapped.view();
            LaunchArgs la = new LaunchArgs(mapped, 64, 7);
            for (Module module : new Module[] {ptxModule, cubinModule}) {
                Function f = module.function("record_and_store");
                for (int call = 0; call < 400; call++) {
                    int blocks = 1 + r.nextInt(8);
                    int threads = blocks * 128;
                    int i = r.nextInt();
                    long l = r.nextLong();
                    float fl = r.nextFloat() * 1e6f - 5e5f;
                    double d = r.nextGaussian() * 1e100;
                    // a third of the calls have no failing thread; the others fail from a random thread on
                    int fail = call % 3 == 0 ? threads : r.nextInt(threads);
                    record.putLong(0, 0L);
                    record.putLong(8, 0L);
                    la.putPointer(0, mapped.deviceAddress());
                    la.putPointer(1, out.address());
                    la.putInt(2, i);
                    la.putLong(3, l);
                    la.putFloat(4, fl);
                    la.putDouble(5, d);
                    la.putInt(6, fail);
                    f.launch(new int[] {blocks, 1, 1}, new int[] {128, 1, 1}, la, null, "call " + call);
                    context.synchronize("the mapped-memory test");
                    int code = record.getInt(0);
                    long detail = record.getLong(8);
                    if (fail == threads) {
                        assertEquals(0, code, "no thread failed in call " + call);
                        assertEquals(0L, detail);
                    } else {
                        assertTrue(code - 1 >= fail && code - 1 < threads, "call " + call + ": code " + code
                                + " claims a thread that failed (" + fail + " to " + (threads - 1) + ")");
                        assertEquals(code - 1, detail, "the detail is the claiming thread's, call " + call);
                    }
                    byte[] bytes = new byte[32];
                    out.copyToHost(bytes);
                    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
                    assertEquals(i, b.getInt(0), "call " + call);
                    assertEquals(l, b.getLong(8), "call " + call);
                    assertEquals(Float.floatToRawIntBits(fl), Float.floatToRawIntBits(b.getFloat(16)), "call " + call);
                    assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits(b.getDouble(24)),
                            "call " + call);
                }
            }
        } finally {
            context.close();
        }
    }
}
