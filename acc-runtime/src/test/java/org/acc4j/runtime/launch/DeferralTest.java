package org.acc4j.runtime.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import org.acc4j.Kernels;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.plan.LaunchPlan;
import org.acc4j.compiler.plan.MethodLaunch;
import org.junit.jupiter.api.Test;

/**
 * Which synchronous launches may be deferred, on kernels compiled from the methods below (no device needed): only a
 * variant that can write no error record, with no reduction or scan, launched by a call on present data with the
 * switch on, the profile off and the tuner not timing it.
 */
class DeferralTest {
    @Kernels
    static void scale(double[] x, double[] y, double a, int n) {
        for (int i = 0; i < n; i++) {
            y[i] = a * x[i];
        }
    }

    @Kernels
    static void divide(int[] a, int[] b, int k, int n) {
        for (int i = 0; i < n; i++) {
            b[i] = a[i] / k;
        }
    }

    @Kernels
    static double sum(double[] x, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += x[i];
        }
        return s;
    }

    private static LaunchPlan kernel(String name) throws IOException {
        Method m = java.util.Arrays.stream(DeferralTest.class.getDeclaredMethods())
                .filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        byte[] bytes;
        try (InputStream in = DeferralTest.class.getResourceAsStream("DeferralTest.class")) {
            bytes = in.readAllBytes();
        }
        Compiler.Result r = Compiler.compile(bytes, name, desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        MethodLaunch plan = MethodLaunch.of(((Compiler.Offload) r).method());
        assertEquals(1, plan.kernels().size(), name);
        return plan.kernel(0);
    }

    @Test
    void aProvenVariantOnPresentDataIsDeferred() throws IOException {
        LaunchPlan k = kernel("scale");
        assertTrue(k.hasUnchecked());
        assertNull(Deferral.why(true, false, k, true, null, false));
        // its checked variant runs when the host could not prove the bounds: its error record is read
        assertSame(Deferral.RAISES, Deferral.why(true, false, k, false, null, false));
    }

    @Test
    void theSwitchTheProfileTheCallAndTheTunerKeepALaunchWaitedFor() throws IOException {
        LaunchPlan k = kernel("scale");
        assertSame(Deferral.OFF, Deferral.why(false, false, k, true, null, false));
        assertSame(Deferral.PROFILED, Deferral.why(true, true, k, true, null, false));
        assertSame(Deferral.NOT_PRESENT, Deferral.why(true, false, k, true, Deferral.NOT_PRESENT, false));
        assertSame(Deferral.ASYNC, Deferral.why(true, false, k, true, Deferral.ASYNC, false));
        assertSame(Deferral.COLOURED, Deferral.why(true, false, k, true, Deferral.COLOURED, false));
        assertSame(Deferral.TIMED, Deferral.why(true, false, k, true, null, true));
    }

    @Test
    void theReportSaysOncePerKernelWhetherItsLaunchesAreDeferred() throws IOException {
        LaunchPlan k = kernel("scale");
        java.util.List<String> lines = new java.util.ArrayList<>();
        Deferral.Report report = new Deferral.Report(lines::add);
        // timed by the tuner: nothing yet; data not present: said once; then deferred: said once
        report.say("DeferralTest.java", k, Deferral.TIMED);
        report.say("DeferralTest.java", k, Deferral.NOT_PRESENT);
        report.say("DeferralTest.java", k, Deferral.NOT_PRESENT);
        report.say("DeferralTest.java", k, null);
        report.say("DeferralTest.java", k, null);
        report.say("DeferralTest.java", k, Deferral.RAISES);
        String at = "DeferralTest.java:" + k.line() + ": kernel " + k.entry(false);
        assertEquals(java.util.List.of(at + ": this launch is waited for: " + Deferral.NOT_PRESENT,
                at + ": launches deferred: the call returns once the kernel is queued, and the next operation that"
                        + " needs the device's data waits for it"), lines);
        // a kernel that can raise says why, once
        LaunchPlan d = kernel("divide");
        report.say("DeferralTest.java", d, Deferral.RAISES);
        report.say("DeferralTest.java", d, Deferral.RAISES);
        assertEquals(3, lines.size());
        assertTrue(lines.get(2).endsWith(": launches waited for: " + Deferral.RAISES), lines.get(2));
    }

    @Test
    void anIntegerDivisionKeepsEveryVariantWaitedFor() throws IOException {
        LaunchPlan k = kernel("divide");
        assertSame(Deferral.RAISES, Deferral.why(true, false, k, false, null, false));
        if (k.hasUnchecked()) {
            assertSame(Deferral.RAISES, Deferral.why(true, false, k, true, null, false));
        }
    }

    @Test
    void aReductionIsReadByTheHostAfterItsLaunch() throws IOException {
        LaunchPlan k = kernel("sum");
        assertTrue(k.reductions() > 0);
        String why = Deferral.why(true, false, k, k.hasUnchecked(), null, false);
        assertTrue(why == Deferral.REDUCES || why == Deferral.RAISES, why);
        if (k.hasUnchecked()) {
            assertSame(Deferral.REDUCES, why);
        }
    }
}
