package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.profile.Profiler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Autotuning of block shapes on the GPU: the Jacobi sweep with no hints ({@link Jacobi#sweep}) on a 4096² grid, long
 * enough to be tuned, called until its shape is chosen and beyond; every call's output, the tuning calls' included
 * (each launched with another block), is checked against plain Java on every element, bit for bit. The report must
 * list the shapes tried with their medians and the one chosen, the profile the tuning's launches and time, and the
 * cache folder the entry; a second run of the runtime takes the shape from the folder and times nothing, and
 * {@code acc4j.autotune=false} tunes nothing. The sweep's plain kernel is tuned (its two-axis block; the marched kernel
 * it gets by default has blocks of one axis): {@code acc4j.march=gaps2d=off}. A double dot product keeps its block
 * and says why. Skips, saying why,
 * where there is no CUDA device.
 */
@Tag("gpu")
class AutotuneGpuTest {
    private static final int N = 4096;
    private static final String SWEEP = "([D[DII)V";
    private static final List<String> PROPERTIES = List.of("acc4j.profile", "acc4j.report", "acc4j.cache.dir",
            "acc4j.autotune", "acc4j.march");

    @TempDir
    Path cache;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @AfterEach
    void defaults() {
        restart();
    }

    /** Ends this run of the runtime and starts the next with exactly these acc4j properties. */
    private static void restart(String... properties) {
        AccRuntime.get().shutdown();
        PROPERTIES.forEach(System::clearProperty);
        for (int i = 0; i < properties.length; i += 2) {
            System.setProperty(properties[i], properties[i + 1]);
        }
        AccRuntime.get().init();
    }

    private static String stderrOf(Runnable r) {
        PrintStream old = System.err;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(old);
        }
        String s = buffer.toString(StandardCharsets.UTF_8);
        old.print(s);
        return s;
    }

    /** {@code calls} sweeps on the device, each checked on every element against {@code expected}. */
    private static void sweeps(double[] src, double[] expected, int calls, long seed) {
        Random r = new Random(seed);
        for (int call = 0; call < calls; call++) {
            double[] dst = new double[N * N];
            // the boundary is never written: it must keep these values
            for (int i = 0; i < N; i++) {
                dst[i] = r.nextDouble();
                dst[(N - 1) * N + i] = r.nextDouble();
                dst[i * N] = r.nextDouble();
                dst[i * N + N - 1] = r.nextDouble();
            }
            double[] want = dst.clone();
            for (int i = 1; i < N - 1; i++) {
                System.arraycopy(expected, i * N + 1, want, i * N + 1, N - 2);
            }
            assertTrue(AccRuntime.offload(Jacobi.class, "sweep", SWEEP, null, new Object[] {src, dst, N, N}),
                    "call " + call + " did not run on the device");
            for (int q = 0; q < dst.length; q++) {
                if (Double.doubleToRawLongBits(want[q]) != Double.doubleToRawLongBits(dst[q])) {
                    assertEquals(want[q], dst[q], "call " + call + ", element " + q + " (row " + q / N + ", column "
                            + q % N + ")");
                }
            }
        }
    }

    private static double[] grid(long seed) {
        Random r = new Random(seed);
        double[] a = new double[N * N];
        for (int i = 0; i < a.length; i++) {
            a[i] = r.nextDouble() * 100 - 50;
        }
        return a;
    }

    private static double[] plainSweep(double[] src) {
        double[] dst = new double[N * N];
        Jacobi.sweep(src, dst, N, N);
        return dst;
    }

    private static List<Profiler.Tuning> tunings() {
        return AccRuntime.get().profile().snapshot().tunings();
    }

    @Test
    void jacobiIsTunedOnItsRealCallsWithJavasResultOnEveryCallAndTheChoiceIsKept() throws Exception {
        restart("acc4j.profile", "true", "acc4j.report", "true", "acc4j.cache.dir", cache.toString(), "acc4j.march",
                "gaps2d=off");
        double[] src = grid(1);
        double[] expected = plainSweep(src);
        String report = stderrOf(() -> sweeps(src, expected, 30, 2));
        Pattern tried = Pattern.compile("kernel (acc_Jacobi_sweep\\w*) \\[12x12\\]: tried (.*?); block (\\d+x\\d+x1) "
                + "(chosen|kept)");
        Matcher m = tried.matcher(report);
        assertTrue(m.find(), report);
        String kernel = m.group(1);
        // the own block and at least three other shapes were launched and timed
        int timed = 0;
        for (String part : m.group(2).split(", ")) {
            if (part.matches("\\d+x\\d+x\\d+ \\d+\\.\\d us.*")) {
                timed++;
            }
        }
        assertTrue(timed >= 4, m.group(2));
        assertTrue(m.group(2).startsWith("128x2x1 "), "the mapping's own block first: " + m.group(2));
        List<Profiler.Tuning> t = tunings();
        assertEquals(1, t.size(), t.toString());
        assertEquals(kernel, t.get(0).kernel());
        assertEquals("12x12", t.get(0).sizeClass());
        assertTrue(t.get(0).launches() >= 6 && t.get(0).launches() <= 30, t.toString());
        assertTrue(t.get(0).nanos() > 0 && t.get(0).extraNanos() >= 0 && t.get(0).extraNanos() < t.get(0).nanos(),
                t.toString());
        assertTrue(AccRuntime.get().report().contains("block shapes tuned at run time"), AccRuntime.get().report());
        Path tune = cache.resolve("tune");
        try (Stream<Path> files = Files.list(tune)) {
            List<Path> entries = files.toList();
            assertEquals(1, entries.size(), entries.toString());
            String text = Files.readString(entries.get(0));
            assertTrue(text.contains("\nblock " + m.group(3).replace('x', ' ') + "\n"), text);
        }

        // the next run takes the shape from the folder: correct from its first call, nothing timed
        restart("acc4j.profile", "true", "acc4j.report", "true", "acc4j.cache.dir", cache.toString(), "acc4j.march",
                "gaps2d=off");
        String next = stderrOf(() -> sweeps(src, expected, 4, 3));
        assertTrue(next.contains("kernel " + kernel + " [12x12]: block " + m.group(3) + ", tuned in an earlier run"),
                next);
        assertEquals(List.of(), tunings());
    }

    @Test
    void switchedOffNothingIsTimedAndResultsStayJavas() {
        restart("acc4j.profile", "true", "acc4j.report", "true", "acc4j.cache.dir", cache.toString(),
                "acc4j.autotune", "false");
        double[] src = grid(4);
        double[] expected = plainSweep(src);
        String report = stderrOf(() -> sweeps(src, expected, 8, 5));
        assertFalse(report.contains("tried "), report);
        assertEquals(List.of(), tunings());
        assertFalse(Files.exists(cache.resolve("tune")));
    }

    @Test
    void aDoubleDotProductKeepsItsBlockAndSaysWhy() {
        restart("acc4j.report", "true", "acc4j.cache.dir", cache.toString());
        Random r = new Random(6);
        int n = 1 << 24;
        double[] a = new double[n];
        double[] b = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble();
            b[i] = r.nextDouble();
        }
        String report = stderrOf(() -> {
            Object first = null;
            for (int call = 0; call < 6; call++) {
                Object[] got = AccRuntime.offloadValue(Reduce.class, "dot", "([D[DI)D", null, new Object[] {a, b, n});
                assertTrue(got != null, "did not run on the device");
                if (first == null) {
                    first = got[0];
                }
                assertEquals(first, got[0], "every call gives the same bits: call " + call);
            }
        });
        assertTrue(report.contains("not tuned: its double reduction of "), report);
        assertFalse(report.contains("tried "), report);
    }
}
