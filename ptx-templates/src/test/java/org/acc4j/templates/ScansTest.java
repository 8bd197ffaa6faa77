package org.acc4j.templates;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.templates.Reductions.Kind;
import org.acc4j.templates.Reductions.Op;
import org.acc4j.templates.reduce.ReduceOrder;
import org.acc4j.templates.scan.ScanOrder;
import org.junit.jupiter.api.Test;

/**
 * The scan routines: every one assembles with {@code ptxas -arch=sm_90}, and the host mirror of their grouping gives
 * Java's sequential scan bit for bit for every integer operation and for float MIN and MAX, and float sums within a
 * bound, inclusive and exclusive, on random inputs of several tiles and a partial last tile (fixed seeds).
 */
class ScansTest {
    private static List<Scans.Routine> all() {
        List<Scans.Routine> out = new ArrayList<>();
        for (Reductions.Routine r : Reductions.all()) {
            out.add(new Scans.Routine(r.op(), r.kind(), true));
            out.add(new Scans.Routine(r.op(), r.kind(), false));
        }
        return out;
    }

    @Test
    void everyRoutineAssembles() throws Exception {
        assumeTrue(Ptxas.onPath(), Ptxas.ABSENT);
        StringBuilder entries = new StringBuilder();
        int k = 0;
        for (Scans.Routine r : all()) {
            String t = r.kind().ptxType().substring(1);
            entries.append(".visible .entry k").append(k++).append("(.param .u64 a, .param .s64 n, .param .").append(t)
                    .append(" s, .param .u64 c)\n{\n\t.reg .b64 %d<4>;\n\t.reg .").append(t).append(" %s;\n")
                    .append("\tld.param.u64 %d1, [a];\n\tcvta.to.global.u64 %d1, %d1;\n\tld.param.s64 %d2, [n];\n")
                    .append("\tld.param.").append(t).append(" %s, [s];\n\tld.param.u64 %d3, [c];\n")
                    .append("\tcvta.to.global.u64 %d3, %d3;\n\t{\n")
                    .append("\t.param .u64 p1;\n\t.param .u64 p2;\n\t.param .s64 p3;\n\t.param .").append(t)
                    .append(" p4;\n\t.param .u64 p5;\n\t.param .u64 p6;\n\t.param .u64 p7;\n\t.param .u64 p8;\n")
                    .append("\tst.param.u64 [p1], %d1;\n\tst.param.u64 [p2], %d1;\n\tst.param.s64 [p3], %d2;\n")
                    .append("\tst.param.").append(t).append(" [p4], %s;\n\tst.param.u64 [p5], %d3;\n")
                    .append("\tst.param.u64 [p6], %d3;\n\tst.param.u64 [p7], %d3;\n\tst.param.u64 [p8], %d3;\n")
                    .append("\tcall.uni ").append(r.symbol()).append(", (p1, p2, p3, p4, p5, p6, p7, p8);\n\t}\n")
                    .append("\tret;\n}\n");
        }
        String ptx = ".version 7.8\n.target sm_90\n.address_size 64\n\n" + Scans.moduleText(all()) + "\n" + entries;
        Ptxas.assemble("scans", ptx);
    }

    @Test
    void theModuleTextIsStableAndNamesItsRoutines() {
        String text = Scans.moduleText(all());
        List<Scans.Routine> reversed = new ArrayList<>(all());
        java.util.Collections.reverse(reversed);
        assertEquals(text, Scans.moduleText(reversed));
        assertTrue(text.contains(".func acc_scan_add_f64_incl("), text.substring(0, 400));
        assertEquals("", Scans.moduleText(List.of()));
        assertEquals(8192, Scans.tileElements(Kind.I32));
        assertEquals(4096, Scans.tileElements(Kind.F64));
    }

    private static long bits(Kind k, Random r) {
        return switch (k) {
            case I32 -> r.nextInt() & 0xFFFF_FFFFL;
            case I64 -> r.nextLong();
            case F32 -> Float.floatToRawIntBits((float) r.nextGaussian()) & 0xFFFF_FFFFL;
            case F64 -> Double.doubleToRawLongBits(r.nextGaussian());
        };
    }

    private static double value(Kind k, long b) {
        return k == Kind.F32 ? Float.intBitsToFloat((int) b) : Double.longBitsToDouble(b);
    }

    @Test
    void theMirrorGivesJavasScanForIntegersAndMinMaxAndABoundedSumForFloats() {
        Random r = new Random(1630);
        for (Scans.Routine rt : all()) {
            if (rt.op() == Op.MUL && !rt.kind().isInteger()) {
                continue;
            }
            int n = 2 * Scans.tileElements(rt.kind()) + 777;
            long[] in = new long[n];
            for (int i = 0; i < n; i++) {
                in[i] = bits(rt.kind(), r);
            }
            long s0 = bits(rt.kind(), r);
            long[] java = new long[n];
            long s = s0;
            double abs = Math.abs(value(rt.kind(), s0));
            double[] absPrefix = new double[n];
            for (int i = 0; i < n; i++) {
                if (rt.inclusive()) {
                    s = ReduceOrder.apply(rt.op(), rt.kind(), s, in[i]);
                    abs += Math.abs(value(rt.kind(), in[i]));
                    java[i] = s;
                    absPrefix[i] = abs;
                } else {
                    java[i] = s;
                    absPrefix[i] = abs;
                    s = ReduceOrder.apply(rt.op(), rt.kind(), s, in[i]);
                    abs += Math.abs(value(rt.kind(), in[i]));
                }
            }
            long[] device = ScanOrder.scan(rt.op(), rt.kind(), rt.inclusive(), s0, in);
            if (rt.kind().isInteger() || rt.op() != Op.ADD) {
                assertArrayEquals(java, device, rt.symbol());
            } else {
                // a reassociated sum: |error| <= (n + 1) * ulp(1) * sum of |terms| before it
                double eps = rt.kind() == Kind.F32 ? Math.ulp(1f) : Math.ulp(1.0);
                for (int i = 0; i < n; i++) {
                    double bound = (i + 2) * eps * absPrefix[i];
                    assertTrue(Math.abs(value(rt.kind(), java[i]) - value(rt.kind(), device[i])) <= bound,
                            rt.symbol() + " element " + i);
                }
            }
        }
    }
}
