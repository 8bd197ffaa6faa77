package org.acc4j.compiler;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.RowGroup;
import org.acc4j.compiler.pass.Tiling;
import org.objectweb.asm.tree.ClassNode;

/**
 * The compiler's report on a method, built from the outputs of its {@link Pipeline}: one line per decision, in the
 * style of {@code -Minfo=accel}, each starting with the source file and, where one applies, the line. The passes
 * give their notes as plain text; the wording of the decisions the report states itself lives here.
 */
final class CompileReport {
    private CompileReport() {
    }

    /** The report lines of a pipeline that ran every phase on a method of {@code cn}. */
    static List<String> of(ClassNode cn, Pipeline p) {
        List<String> report = new ArrayList<>();
        for (String note : p.rewriteNotes()) {
            report.add(where(cn, 0) + note);
        }
        for (Pipeline.Kernel k : p.kernels()) {
            kernel(cn, k, report);
        }
        for (DataClause c : p.data()) {
            report.add(where(cn, 0) + "data " + c);
        }
        return report;
    }

    private static void kernel(ClassNode cn, Pipeline.Kernel k, List<String> report) {
        Region r = k.region();
        RowGroup group = k.group();
        List<RangeCheck> hoisted = k.hoisted();
        report.add(where(cn, r.loop().line()) + "kernel " + k.checked().entry() + ": " + r.mapping());
        report.add(where(cn, 0) + "  " + r.mapping().shape() + (r.mapping().gridFixed() ? ""
                : ": the grid depends on run-time values; the first launch's shape is reported"));
        for (String note : r.notes()) {
            // a row group's note replaces the parallelism pass's about its inner loop
            if (group == null || !note.startsWith("line " + group.inner().line() + ": loop over "
                    + group.inner().index().name() + ": sequential")) {
                report.add(where(cn, 0) + "  " + note);
            }
        }
        for (String note : k.groupNotes()) {
            report.add(where(cn, group != null ? group.inner().line() : 0) + "  " + note);
        }
        if (r.scan() != null) {
            report.add(where(cn, r.scan().line()) + "  " + r.scan() + ": one pass on the device (each element read"
                    + " and written once), the tiles' prefixes found by a decoupled look-back");
        }
        for (var red : r.reductions()) {
            report.add(where(cn, red.line()) + "  " + red + ": each thread accumulates privately, the grid's "
                    + "values are combined on the device and only the result is copied back");
        }
        if (!hoisted.isEmpty()) {
            report.add(where(cn, 0) + "  bounds of " + hoisted.size() + " access"
                    + (hoisted.size() == 1 ? "" : "es") + " proven on the host before each launch (no check in "
                    + "the kernel when they hold): " + hoisted.stream().map(c -> c.array().name() + " at line "
                    + c.line()).distinct().collect(Collectors.joining(", ")));
        }
        KernelPlan.Unchecked unchecked = k.unchecked();
        if (unchecked != null && unchecked.tiled() != null) {
            report.add(where(cn, r.loop().line()) + "  " + unchecked.tiled().note());
            if (unchecked.tiled() instanceof Tiling.Matmul mm && !mm.tensorCores()
                    && Tiling.MatmulTile.configurationNote() != null) {
                report.add(where(cn, r.loop().line()) + "  " + Tiling.MatmulTile.configurationNote());
            }
            if (unchecked.tiled() instanceof Tiling.Matmul mm && mm.tensorCores()
                    && Tiling.TensorTile.configurationNote() != null) {
                report.add(where(cn, r.loop().line()) + "  " + Tiling.TensorTile.configurationNote());
            }
        }
        if (unchecked != null && unchecked.marched() != null) {
            // the marched region's own notes: the unrolling's, when it ran, then the marching's
            List<String> notes = unchecked.marched().notes();
            for (String note : notes.subList(Math.min(r.notes().size(), notes.size() - 1), notes.size())) {
                report.add(where(cn, r.loop().line()) + "  " + note);
            }
        }
        for (var v : r.hostVars()) {
            report.add(where(cn, 0) + "  " + v.name() + " is computed on the host (it depends on a reduction) "
                    + "and passed to the kernel");
        }
        for (var f : r.mapping().checkedLoops()) {
            var st = f.stride();
            report.add(where(cn, f.line()) + "  checked before each launch: the loop over "
                    + (st == null ? f.index().name() + " reaches its bound " + f.bound() + " in whole steps of "
                    + f.step() : st.var().name() + " steps by " + st.step() + " > 0 and reaches its bound "
                    + st.bound() + " without wrapping around") + " (else the call runs on the host)");
        }
        for (var check : r.checks()) {
            report.add(where(cn, 0) + "  checked before each launch: the writes to " + check.array().name()
                    + " at line " + check.line() + " do not overlap");
        }
    }

    private static String where(ClassNode cn, int line) {
        return (cn.sourceFile != null ? cn.sourceFile : cn.name) + (line > 0 ? ":" + line : "") + ": ";
    }
}
