package org.acc4j.templates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.acc4j.templates.Reductions.Kind;
import org.acc4j.templates.Reductions.Op;
import org.acc4j.templates.Reductions.Routine;
import org.acc4j.templates.reduce.ReduceOrder;
import org.junit.jupiter.api.Test;

/** The routine names and types, the identities, and the module text (each definition once, no clash). */
class ReductionsTest {
    private static final Pattern DEFINED = Pattern.compile("(?m)^\\.(?:func|shared|global)[^\\n]*?\\b(\\w+)\\s*[(\\[]");

    private static List<String> definitions(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = DEFINED.matcher(text.replaceAll("//[^\\n]*", ""));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void routinesNameTheirOperationAndType() {
        Routine r = new Routine(Op.ADD, Kind.F64);
        assertEquals("acc_reduce_add_f64", r.symbol());
        assertEquals(".f64", r.ptxType());
        assertEquals("acc_reduce_xor_i64", new Routine(Op.XOR, Kind.I64).symbol());
        assertEquals(".s64", new Routine(Op.XOR, Kind.I64).ptxType());
        assertEquals(".s32", new Routine(Op.MIN, Kind.I32).ptxType());
        assertEquals(".f32", new Routine(Op.MUL, Kind.F32).ptxType());
        assertEquals(7 * 2 + 4 * 2, Reductions.all().size());
    }

    @Test
    void bitwiseOperationsOverFloatsAreRejectedByName() {
        for (Op op : List.of(Op.AND, Op.OR, Op.XOR)) {
            for (Kind k : List.of(Kind.F32, Kind.F64)) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Routine(op, k));
                assertTrue(e.getMessage().contains(op.name()) && e.getMessage().contains(k.name()), e.getMessage());
                assertThrows(IllegalArgumentException.class, () -> Reductions.identityBits(op, k));
            }
        }
        assertThrows(NullPointerException.class, () -> new Routine(null, Kind.I32));
        assertThrows(NullPointerException.class, () -> new Routine(Op.ADD, null));
    }

    @Test
    void identities() {
        assertEquals(Double.doubleToRawLongBits(-0.0), Reductions.identityBits(Op.ADD, Kind.F64));
        assertEquals(0x8000_0000L, Reductions.identityBits(Op.ADD, Kind.F32));
        assertEquals(0L, Reductions.identityBits(Op.ADD, Kind.I64));
        assertEquals(1L, Reductions.identityBits(Op.MUL, Kind.I32));
        assertEquals(Float.floatToRawIntBits(1f), Reductions.identityBits(Op.MUL, Kind.F32));
        assertEquals(0x8000_0000L, Reductions.identityBits(Op.MAX, Kind.I32));
        assertEquals(Long.MAX_VALUE, Reductions.identityBits(Op.MIN, Kind.I64));
        assertEquals(Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY), Reductions.identityBits(Op.MAX, Kind.F64));
        assertEquals(Float.floatToRawIntBits(Float.POSITIVE_INFINITY), Reductions.identityBits(Op.MIN, Kind.F32));
        assertEquals(0xFFFF_FFFFL, Reductions.identityBits(Op.AND, Kind.I32));
        assertEquals(-1L, Reductions.identityBits(Op.AND, Kind.I64));
        assertEquals(0L, Reductions.identityBits(Op.OR, Kind.I32));
        assertEquals(0L, Reductions.identityBits(Op.XOR, Kind.I64));
    }

    @Test
    void identitiesLeaveEveryValueAlone() {
        long[] ints = {0, 1, -1, 7, Integer.MIN_VALUE, Integer.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, 0x5555_AAAA_0F0FL};
        double[] doubles = {0.0, -0.0, 1.0, -1.5, Double.MIN_VALUE, -Double.MAX_VALUE, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, 0x1p-1030, 3.25e300};
        for (Routine r : Reductions.all()) {
            long id = Reductions.identityBits(r.op(), r.kind());
            List<Long> values = new ArrayList<>();
            for (long v : ints) {
                values.add(r.kind().isInteger() ? bits(r.kind(), v) : 0L);
            }
            for (double d : doubles) {
                if (r.kind() == Kind.F64) {
                    values.add(Double.doubleToRawLongBits(d));
                } else if (r.kind() == Kind.F32) {
                    values.add(Float.floatToRawIntBits((float) d) & 0xFFFF_FFFFL);
                }
            }
            if (r.op() == Op.MAX || r.op() == Op.MIN) {
                values.add(r.kind() == Kind.F64 ? 0x7FF0_0000_0000_0123L : r.kind() == Kind.F32 ? 0xFFC0_0042L : 5);
            }
            for (long v : values) {
                assertEquals(v, ReduceOrder.apply(r.op(), r.kind(), id, v), r.symbol() + "(identity, " + Long.toHexString(v) + ")");
                assertEquals(v, ReduceOrder.apply(r.op(), r.kind(), v, id), r.symbol() + "(" + Long.toHexString(v) + ", identity)");
            }
        }
    }

    private static long bits(Kind k, long v) {
        return k.bytes() == 4 ? v & 0xFFFF_FFFFL : v;
    }

    @Test
    void moduleTextDefinesEachRoutineOnceWithTheSharedSlots() {
        for (Routine r : Reductions.all()) {
            String text = Reductions.moduleText(List.of(r, r));
            assertEquals(List.of("acc_reduce_smem", r.symbol()), definitions(text));
            assertFalse(text.contains("${"), "a hole left unfilled in " + r.symbol());
            assertFalse(text.contains(".version") || text.contains(".target"), "no header");
        }
        String all = Reductions.moduleText(Reductions.all());
        List<String> defs = definitions(all);
        assertEquals(Reductions.all().size() + 1, defs.size());
        assertEquals(Set.copyOf(defs).size(), defs.size(), "each definition once");
        assertTrue(defs.stream().allMatch(d -> d.startsWith("acc_reduce_")), defs.toString());
        assertFalse(all.contains("acc_math_"));
        List<Routine> reversed = new ArrayList<>(Reductions.all());
        java.util.Collections.reverse(reversed);
        assertEquals(all, Reductions.moduleText(reversed), "the text does not depend on the order asked");
        assertEquals("", Reductions.moduleText(List.of()));
    }

    @Test
    void floatCombinationsAreNeverContractedAndKeepNaNsJavasWay() {
        String add = Reductions.moduleText(List.of(new Routine(Op.ADD, Kind.F64)));
        assertTrue(add.contains("add.rn.f64 %a, %a, %b;"), add);
        assertFalse(add.contains("fma"));
        String mul = Reductions.moduleText(List.of(new Routine(Op.MUL, Kind.F32)));
        assertTrue(mul.contains("mul.rn.f32 %a, %a, %b;"), mul);
        assertTrue(mul.contains("0f7FC00000"), "Java's canonical float NaN");
    }
}
