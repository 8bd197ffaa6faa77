package org.acc4j.templates.reduce;

import java.util.List;
import org.acc4j.templates.Reductions.Routine;

/**
 * Test kernels as the compiler will write them: each thread loads its value from a global array at its grid-linear
 * index (block id x threads per block + thread id) and every thread calls the routine; {@code calls} routines
 * one after another, call k with parameters {@code in_k, partials_k, counter_k, result_k}.
 */
public final class TestKernels {
    public static final String HEADER = ".version 7.8\n.target sm_90\n.address_size 64\n\n";

    private TestKernels() {
    }

    public static String entry(List<Routine> calls) {
        StringBuilder e = new StringBuilder("test");
        for (Routine r : calls) {
            e.append('_').append(r.symbol().substring("acc_reduce_".length()));
        }
        return e.toString();
    }

    public static String kernel(List<Routine> calls) {
        StringBuilder k = new StringBuilder(".visible .entry ").append(entry(calls)).append("(");
        for (int c = 0; c < calls.size(); c++) {
            k.append(c == 0 ? "" : ", ").append(".param .u64 in_").append(c).append(", .param .u64 partials_").append(c)
                    .append(", .param .u64 counter_").append(c).append(", .param .u64 result_").append(c);
        }
        k.append(")\n{\n    .reg .b32 %r<12>;\n    .reg .b64 %rd<12>;\n");
        k.append("    mov.u32 %r1, %ntid.x;\n    mov.u32 %r2, %ntid.y;\n    mov.u32 %r3, %ntid.z;\n");
        k.append("    mov.u32 %r4, %tid.x;\n    mov.u32 %r5, %tid.y;\n    mov.u32 %r6, %tid.z;\n");
        k.append("    mad.lo.u32 %r7, %r6, %r2, %r5;\n    mad.lo.u32 %r7, %r7, %r1, %r4;\n");
        k.append("    mul.lo.u32 %r8, %r1, %r2;\n    mul.lo.u32 %r8, %r8, %r3;\n");
        k.append("    mov.u32 %r1, %nctaid.x;\n    mov.u32 %r2, %nctaid.y;\n");
        k.append("    mov.u32 %r4, %ctaid.x;\n    mov.u32 %r5, %ctaid.y;\n    mov.u32 %r6, %ctaid.z;\n");
        k.append("    mul.wide.u32 %rd1, %r6, %r2;\n    cvt.u64.u32 %rd2, %r5;\n    add.u64 %rd1, %rd1, %rd2;\n");
        k.append("    cvt.u64.u32 %rd2, %r1;\n    cvt.u64.u32 %rd3, %r4;\n    mad.lo.u64 %rd1, %rd1, %rd2, %rd3;\n");
        k.append("    cvt.u64.u32 %rd2, %r8;\n    cvt.u64.u32 %rd3, %r7;\n    mad.lo.u64 %rd4, %rd1, %rd2, %rd3;\n");
        for (int c = 0; c < calls.size(); c++) {
            Routine r = calls.get(c);
            String t = r.ptxType();
            k.append("    {\n        .reg ").append(t).append(" %v;\n        .reg .b64 %x<4>;\n");
            k.append("        .param ").append(t).append(" a0;\n        .param .u64 a1;\n");
            k.append("        .param .u64 a2;\n        .param .u64 a3;\n");
            k.append("        ld.param.u64 %x1, [in_").append(c).append("];\n");
            k.append("        cvta.to.global.u64 %x1, %x1;\n");
            k.append("        mad.lo.u64 %x1, %rd4, ").append(r.kind().bytes()).append(", %x1;\n");
            k.append("        ld.global").append(t).append(" %v, [%x1];\n");
            k.append("        ld.param.u64 %x1, [partials_").append(c).append("];\n");
            k.append("        ld.param.u64 %x2, [counter_").append(c).append("];\n");
            k.append("        ld.param.u64 %x3, [result_").append(c).append("];\n");
            k.append("        st.param").append(t).append(" [a0], %v;\n        st.param.u64 [a1], %x1;\n");
            k.append("        st.param.u64 [a2], %x2;\n        st.param.u64 [a3], %x3;\n");
            k.append("        call.uni ").append(r.symbol()).append(", (a0, a1, a2, a3);\n    }\n");
        }
        k.append("    ret;\n}\n");
        return k.toString();
    }
}
