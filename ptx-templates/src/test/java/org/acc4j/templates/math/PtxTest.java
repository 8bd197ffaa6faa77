package org.acc4j.templates.math;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.acc4j.templates.MathLibrary;
import org.acc4j.templates.MathLibrary.Routine;
import org.acc4j.templates.Ptxas;
import org.acc4j.templates.math.Inputs.Kind;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The PTX routines against their Java mirror: each routine's module text, run by {@link PtxInterpreter} on
 * seeded and special inputs, gives exactly the bits of {@link AccMath}; the tables in the PTX are those of
 * {@link Tables}; and {@code ptxas -arch=sm_90} assembles every routine in a test kernel (skipped, saying so,
 * where ptxas is not on the PATH).
 */
class PtxTest {
    private static final int INPUTS = 20_000;
    static final String HEADER = ".version 7.8\n.target sm_90\n.address_size 64\n\n";

    private static final double[] SPECIALS = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0,
        -0.0, Double.MIN_VALUE, -Double.MIN_VALUE, 0x1p-1022, Double.MAX_VALUE, -Double.MAX_VALUE, 1.0, -1.0, 0.5, 2.0,
        -2.0, 3.0, -3.0, 0x1p-28, 0x1p-27, 0x1p20, 20.0, 709.79, 709.7827128933841, -745.2, -745.1332191019411,
        -744.44, 0x1.921fb54442d18p-1, 0x1.921fb54442d18p+0, 0x1.6ac5b262ca1ffp+849, 1e300, 1e-300, 0x1p53, 0x1p31};

    private static Kind kind(Routine r) {
        return Mirrors.kind(r.function());
    }

    private static double mirror(Routine r, double x, double y) {
        return Mirrors.mirror(r, x, y);
    }

    private static double interpret(PtxInterpreter ptx, Routine r, double x, double y) {
        boolean two = r.function().arity() == 2;
        if (r.f64()) {
            return two ? ptx.callF64(r.symbol(), x, y) : ptx.callF64(r.symbol(), x);
        }
        return two ? ptx.callF32(r.symbol(), (float) x, (float) y) : ptx.callF32(r.symbol(), (float) x);
    }

    @TestFactory
    List<DynamicTest> ptxComputesTheMirrorsBits() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Routine r : MathLibrary.all()) {
            tests.add(DynamicTest.dynamicTest(r.symbol(), () -> {
                PtxInterpreter ptx = new PtxInterpreter(MathLibrary.moduleText(Set.of(r)));
                double[] xs = Inputs.doubles(kind(r), INPUTS, AccMathTest.SEED);
                double[] ys = Inputs.seconds(kind(r), INPUTS, AccMathTest.SEED);
                for (int i = 0; i < INPUTS + SPECIALS.length * SPECIALS.length; i++) {
                    double x;
                    double y;
                    if (i < INPUTS) {
                        x = xs[i];
                        y = ys[i];
                    } else {
                        int k = i - INPUTS;
                        x = SPECIALS[k / SPECIALS.length];
                        y = SPECIALS[k % SPECIALS.length];
                        if (r.function().arity() == 1 && k % SPECIALS.length != 0) {
                            continue;
                        }
                    }
                    double expected = mirror(r, x, y);
                    double actual = interpret(ptx, r, x, y);
                    if (Double.doubleToLongBits(expected) != Double.doubleToLongBits(actual)) {
                        assertEquals(expected, actual, r.symbol() + "(" + Double.toHexString(x)
                                + (r.function().arity() == 2 ? ", " + Double.toHexString(y) : "") + ")");
                    }
                }
                System.out.printf("%s: %d inputs bit-identical to AccMath, %.0f PTX instructions per call%n",
                        r.symbol(), INPUTS, (double) ptx.steps() / INPUTS);
            }));
        }
        return tests;
    }

    @Test
    void tablesInThePtxAreTheMirrorsTables() {
        PtxInterpreter ptx = new PtxInterpreter(MathLibrary.moduleText(MathLibrary.all()));
        assertArrayEquals(Tables.EXP_TAB, ptx.global("acc_math_exp_tab"));
        assertArrayEquals(Tables.LOG_TAB, ptx.global("acc_math_log_tab"));
        assertArrayEquals(Tables.TRIG_TAB, ptx.global("acc_math_trig_tab"));
        assertArrayEquals(Tables.TWO_OVER_PI, ptx.global("acc_math_two_over_pi"));
        assertArrayEquals(Tables.ATAN_TAB, ptx.global("acc_math_atan_tab"));
    }

    /** A kernel calling one routine on element i of an array (two arrays for pow), as a compiler would. */
    static String kernel(Routine r) {
        String t = r.ptxType();
        int size = r.f64() ? 8 : 4;
        String reg = r.f64() ? "%fd" : "%f";
        boolean two = r.function().arity() == 2;
        StringBuilder k = new StringBuilder();
        k.append(".visible .entry test_").append(r.symbol()).append("(.param .u64 out, .param .u64 in, .param .u64 in2)\n{\n");
        k.append("    .reg .b32 %r<4>;\n    .reg .b64 %rd<12>;\n    .reg .").append(t).append(' ').append(reg).append("<6>;\n");
        k.append("    ld.param.u64 %rd1, [out];\n    ld.param.u64 %rd2, [in];\n    ld.param.u64 %rd3, [in2];\n");
        k.append("    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n");
        k.append("    mad.lo.s32 %r1, %r2, %r3, %r1;\n    mul.wide.s32 %rd4, %r1, ").append(size).append(";\n");
        k.append("    cvta.to.global.u64 %rd5, %rd2;\n    add.s64 %rd6, %rd5, %rd4;\n");
        k.append("    ld.global.").append(t).append(' ').append(reg).append("1, [%rd6];\n");
        k.append("    cvta.to.global.u64 %rd7, %rd3;\n    add.s64 %rd8, %rd7, %rd4;\n");
        k.append("    ld.global.").append(t).append(' ').append(reg).append("2, [%rd8];\n");
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
        k.append("    st.global.").append(t).append(" [%rd10], ").append(reg).append("3;\n    ret;\n}\n");
        return k.toString();
    }

    /** A whole module: header, the routines' text, one test kernel per routine. */
    static String module(List<Routine> routines) {
        StringBuilder m = new StringBuilder(HEADER).append(MathLibrary.moduleText(routines));
        for (Routine r : routines) {
            m.append('\n').append(kernel(r));
        }
        return m.toString();
    }

    @TestFactory
    List<DynamicTest> ptxasAssemblesEachRoutineAlone() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Routine r : MathLibrary.all()) {
            tests.add(DynamicTest.dynamicTest(r.symbol(), () -> {
                assumeTrue(Ptxas.onPath(), Ptxas.ABSENT);
                Ptxas.assemble(r.symbol(), module(List.of(r)));
            }));
        }
        return tests;
    }

    @Test
    void ptxasAssemblesAllRoutinesInOneModule() throws Exception {
        assumeTrue(Ptxas.onPath(), Ptxas.ABSENT);
        Ptxas.assemble("all", module(MathLibrary.all()));
    }
}
