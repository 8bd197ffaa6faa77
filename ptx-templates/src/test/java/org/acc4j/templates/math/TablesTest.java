package org.acc4j.templates.math;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import org.junit.jupiter.api.Test;

/** Recomputes every table entry and split constant of the math routines with BigDecimal and compares bits. */
class TablesTest {
    private static final MathContext MC = BigMath.MC;

    private static void assertDoubleDouble(BigDecimal exact, long hi, long lo, String what) {
        double[] dd = BigMath.doubleDouble(exact);
        assertEquals(Double.doubleToRawLongBits(dd[0]), hi, what + " hi");
        assertEquals(Double.doubleToRawLongBits(dd[1]), lo, what + " lo");
    }

    /** The number of significant bits of a double. */
    private static int bits(double d) {
        long m = Double.doubleToRawLongBits(d) & 0xFFFFFFFFFFFFFL;
        return 53 - Long.numberOfTrailingZeros(m | 1L << 52);
    }

    @Test
    void expTable() {
        for (int j = 0; j < 128; j++) {
            BigDecimal v = BigMath.exp(BigMath.LN2.multiply(BigDecimal.valueOf(j)).divide(BigDecimal.valueOf(128), MC));
            assertDoubleDouble(v, Tables.EXP_TAB[2 * j], Tables.EXP_TAB[2 * j + 1], "2^(" + j + "/128)");
        }
    }

    @Test
    void expConstants() {
        BigDecimal step = BigMath.LN2.divide(BigDecimal.valueOf(128), MC);
        // k * L1 is exact for |k| < 2^18, and L1 + L2 is ln2/128 to far below an ulp of L2
        assertTrue(bits(-AccMath.NEG_L1) <= 35);
        BigDecimal sum = new BigDecimal(-AccMath.NEG_L1).add(new BigDecimal(AccMath.L2));
        assertTrue(sum.subtract(step).abs().compareTo(new BigDecimal(Math.ulp(AccMath.L2))) < 0);
        assertEquals(-AccMath.L2, AccMath.NEG_L2);
        assertEquals(BigDecimal.valueOf(128).divide(BigMath.LN2, MC).doubleValue(), AccMath.INV_LN2N);
        assertTrue(BigMath.exp(709.79).compareTo(new BigDecimal(Double.MAX_VALUE)) > 0);
        assertTrue(BigMath.exp(-745.2).compareTo(new BigDecimal(Double.MIN_VALUE).divide(BigDecimal.valueOf(2))) < 0);
    }

    @Test
    void logTable() {
        for (int i = 0; i < 128; i++) {
            double lo = Double.longBitsToDouble(AccMath.LOG_OFF + ((long) i << 45));
            double hi = Double.longBitsToDouble(AccMath.LOG_OFF + ((long) (i + 1) << 45));
            double invc = Double.longBitsToDouble(Tables.LOG_TAB[3 * i]);
            if (lo == 1.0 || hi == 1.0) {
                assertEquals(1.0, invc, "slice " + i + " touches 1: invc = 1");
            } else {
                BigDecimal mid = new BigDecimal(lo).add(new BigDecimal(hi)).divide(BigDecimal.valueOf(2));
                assertEquals(BigDecimal.ONE.divide(mid, MC).doubleValue(), invc, "invc of slice " + i);
            }
            BigDecimal minusLog = BigMath.log(invc).negate();
            if (invc == 1.0) {
                assertEquals(0L, Tables.LOG_TAB[3 * i + 1]);
                assertEquals(0L, Tables.LOG_TAB[3 * i + 2]);
            } else {
                assertDoubleDouble(minusLog, Tables.LOG_TAB[3 * i + 1], Tables.LOG_TAB[3 * i + 2], "-log(invc) " + i);
            }
        }
    }

    @Test
    void logConstants() {
        // e * LN2H is exact for |e| < 2^11; LN2H + LN2L is ln 2 to far below an ulp of LN2L
        assertTrue(bits(AccMath.LN2H) <= 42);
        BigDecimal sum = new BigDecimal(AccMath.LN2H).add(new BigDecimal(AccMath.LN2L));
        assertTrue(sum.subtract(BigMath.LN2).abs().compareTo(new BigDecimal(Math.ulp(AccMath.LN2L))) < 0);
    }

    @Test
    void trigTable() {
        for (int j = 0; j < 26; j++) {
            BigDecimal[] sc = BigMath.sinCosSmall(BigDecimal.valueOf(j).divide(BigDecimal.valueOf(32)));
            assertDoubleDouble(sc[0], Tables.TRIG_TAB[4 * j], Tables.TRIG_TAB[4 * j + 1], "sin(" + j + "/32)");
            assertDoubleDouble(sc[1], Tables.TRIG_TAB[4 * j + 2], Tables.TRIG_TAB[4 * j + 3], "cos(" + j + "/32)");
        }
        // the kernel's index rint(32 u) stays in the table for u up to pi/4 plus a little
        assertTrue(Math.rint(32 * Math.nextUp(AccMath.PIO4) * (1 + 0x1p-40)) <= 25);
    }

    @Test
    void atanTableAndConstants() {
        for (int j = 0; j <= 32; j++) {
            BigDecimal v = BigMath.atan(BigDecimal.valueOf(j).divide(BigDecimal.valueOf(32)));
            assertDoubleDouble(v, Tables.ATAN_TAB[2 * j], Tables.ATAN_TAB[2 * j + 1], "atan(" + j + "/32)");
        }
        BigDecimal halfPi = BigMath.HALF_PI.round(MC);
        assertDoubleDouble(halfPi, Double.doubleToRawLongBits(AccMathInverse.PIO2H),
                Double.doubleToRawLongBits(AccMathInverse.PIO2L), "pi/2");
        assertDoubleDouble(BigMath.PI.round(MC), Double.doubleToRawLongBits(AccMathInverse.PIH),
                Double.doubleToRawLongBits(AccMathInverse.PIL), "pi");
    }

    @Test
    void twoOverPiBits() {
        java.math.BigInteger bits = BigMath.twoOverPiBits(64 * (Tables.TWO_OVER_PI.length - 1));
        assertEquals(0L, Tables.TWO_OVER_PI[0], "padding word");
        for (int w = 1; w < Tables.TWO_OVER_PI.length; w++) {
            long word = bits.shiftRight(64 * (Tables.TWO_OVER_PI.length - 1 - w)).longValue();
            assertEquals(word, Tables.TWO_OVER_PI[w], "word " + w + " of 2/pi");
        }
        // the largest exponent's window (start bit 1033, four words) stays inside the table
        int s = 2046 - 1013;
        assertTrue((s >> 6) + 3 < Tables.TWO_OVER_PI.length);
    }

    @Test
    void trigConstants() {
        // k * Pi is exact for |k| < 2^20, and the four pieces give pi/2 to 2^-150
        for (double p : new double[] {-AccMath.NEG_P1, -AccMath.NEG_P2, -AccMath.NEG_P3}) {
            assertTrue(bits(p) <= 33);
        }
        BigDecimal sum = new BigDecimal(-AccMath.NEG_P1).add(new BigDecimal(-AccMath.NEG_P2))
                .add(new BigDecimal(-AccMath.NEG_P3)).add(new BigDecimal(-AccMath.NEG_P4));
        assertTrue(sum.subtract(BigMath.HALF_PI).abs().compareTo(new BigDecimal(0x1p-150)) < 0);
        assertDoubleDouble(BigMath.HALF_PI, Double.doubleToRawLongBits(AccMath.PIO2H), Double.doubleToRawLongBits(AccMath.PIO2L), "pi/2");
        assertEquals(BigMath.HALF_PI.divide(BigDecimal.valueOf(2)).doubleValue(), AccMath.PIO4);
        assertEquals(BigDecimal.ONE.divide(BigMath.HALF_PI, MC).doubleValue(), AccMath.TWO_OVER_PI_D);
    }
}
