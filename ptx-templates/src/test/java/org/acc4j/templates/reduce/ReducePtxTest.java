package org.acc4j.templates.reduce;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.acc4j.templates.MathLibrary;
import org.acc4j.templates.Ptxas;
import org.acc4j.templates.Reductions;
import org.acc4j.templates.Reductions.Kind;
import org.acc4j.templates.Reductions.Op;
import org.acc4j.templates.Reductions.Routine;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * {@code ptxas -arch=sm_90} assembles every reduction routine in a test kernel that calls it twice (as two
 * reductions in one kernel would), and all routines with the whole math library in one module; skipped, saying
 * so, where ptxas is not on the PATH. Prints each routine's registers and shared memory as ptxas reports them.
 */
class ReducePtxTest {
    static String module(List<Routine> routines, List<List<Routine>> kernels, boolean withMath) {
        StringBuilder m = new StringBuilder(TestKernels.HEADER);
        if (withMath) {
            m.append(MathLibrary.moduleText(MathLibrary.all())).append('\n');
        }
        m.append(Reductions.moduleText(routines));
        for (List<Routine> k : kernels) {
            m.append('\n').append(TestKernels.kernel(k));
        }
        return m.toString();
    }

    @TestFactory
    List<DynamicTest> ptxasAssemblesEachRoutineCalledTwice() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Routine r : Reductions.all()) {
            tests.add(DynamicTest.dynamicTest(r.symbol(), () -> {
                assumeTrue(Ptxas.onPath(), Ptxas.ABSENT);
                String log = Ptxas.assemble(r.symbol(), module(List.of(r), List.of(List.of(r, r)), false), "-v");
                System.out.printf(Locale.ROOT, "%s: assembled for sm_90; %s%n", r.symbol(), usage(log));
            }));
        }
        return tests;
    }

    /** ptxas -v's line for the test kernel: its registers, shared memory included. */
    private static String usage(String log) {
        for (String line : log.split("\n")) {
            if (line.contains("Used") && line.contains("registers")) {
                return line.replaceFirst("^.*?Used", "kernel used").trim();
            }
        }
        return "no usage line from ptxas";
    }

    @Test
    void ptxasAssemblesAllRoutinesBesideTheMathLibrary() throws Exception {
        assumeTrue(Ptxas.onPath(), Ptxas.ABSENT);
        List<List<Routine>> kernels = new ArrayList<>();
        for (Routine r : Reductions.all()) {
            kernels.add(List.of(r));
        }
        // different types one after another over the same shared slots
        kernels.add(List.of(new Routine(Op.ADD, Kind.F64), new Routine(Op.MAX, Kind.I32), new Routine(Op.MIN, Kind.F32),
                new Routine(Op.XOR, Kind.I64)));
        Ptxas.assemble("all", module(Reductions.all(), kernels, true));
    }
}
