package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.profile.Json;
import org.acc4j.runtime.profile.Profiler;
import org.acc4j.runtime.profile.ProfileAssertions;
import org.acc4j.runtime.profile.ProfileFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The time profile, the compile report's kernel resources and {@code ACC_DEVICE_NUM} on the GPU: known kernels
 * run with profiling on, and the profile must count exactly (entries, launches, copies, bytes), time every launch
 * and copy (above 0), and add up (kernel + copy time within each region's wall time). Every result is also checked
 * against plain Java. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class ProfileGpuTest {
    private static final int N = 1_000_003;
    private static final String ADD = "([D[D[DI)V";
    private static final String DOT = "([D[DI)D";
    private static final String REGION = "([D[D[DI)V";
    private static final List<String> PROPERTIES = List.of("acc4j.profile", "acc4j.profile.json", "acc4j.report",
            "acc.device.num");

    @TempDir
    Path dir;
    private Path json;

    @BeforeEach
    void profilingOn() {
        Acc.install(AccRuntime.get().backend());
        json = dir.resolve("profile.json");
        restart("acc4j.profile", "true", "acc4j.profile.json", json.toString());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @AfterEach
    void profilingOff() {
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

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
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
        return buffer.toString(StandardCharsets.UTF_8);
    }

    private static void add(double[] a, double[] b, double[] c) {
        assertTrue(AccRuntime.offload(ProfileFixtures.class, "add", ADD, null, new Object[] {a, b, c, N}),
                "add did not run on the device");
        for (int i = 0; i < N; i++) {
            assertEquals(Double.doubleToLongBits(a[i] + b[i]), Double.doubleToLongBits(c[i]), "element " + i);
        }
    }

    private static Profiler.RegionStats region(Profiler.Snapshot s, String method) {
        return s.regions().stream().filter(r -> r.method().equals(method)).findFirst()
                .orElseThrow(() -> new AssertionError("no region " + method + " in " + s));
    }

    @Test
    void countsLaunchesAndBytesExactlyAndAddsUp() throws Exception {
        Random r = new Random(61);
        double[] a = doubles(r, N);
        double[] b = doubles(r, N);
        for (int call = 0; call < 3; call++) {
            add(a, b, new double[N]);
        }
        Profiler profile = AccRuntime.get().profile();
        assertNotNull(profile, "profiling is on");
        Profiler.RegionStats add = region(profile.snapshot(), "add");
        assertEquals(Profiler.Kind.KERNELS, add.kind());
        assertEquals(3, add.entries());
        assertEquals(0, add.hostRuns());
        assertEquals(1, add.kernels().size());
        Profiler.KernelStats k = add.kernels().get(0);
        assertEquals("acc_ProfileFixtures_add_r0", k.name());
        assertEquals(3, k.launches());
        assertTrue(k.minNanos() > 0 && k.minNanos() <= k.maxNanos(), k::toString);
        // a and b copy in, c copies out (every element written), on each call
        assertEquals(new Profiler.Traffic(6, 6L * 8 * N, add.toDevice().nanos()), add.toDevice());
        assertEquals(new Profiler.Traffic(3, 3L * 8 * N, add.toHost().nanos()), add.toHost());
        assertTrue(add.toDevice().nanos() > 0 && add.toHost().nanos() > 0, add::toString);
        assertTrue(add.compileNanos() > 0 && add.loadNanos() > 0, "compiled and loaded on the first call: " + add);
        assertTrue(add.kernelNanos() + add.transferNanos() <= add.wallNanos(), add::toString);
        assertArrayEquals(new int[] {128, 1, 1}, k.block(), k::toString);
        assertTrue(k.grid()[0] >= 1 && k.grid()[1] == 1 && k.grid()[2] == 1, k::toString);

        String text = Acc.report();
        assertTrue(text.contains("ProfileFixtures.add  kernels region"), text);
        assertTrue(text.contains("reached 3 times"), text);
        assertTrue(text.contains("kernel acc_ProfileFixtures_add_r0 launched 3 times"), text);
        assertTrue(text.contains("copies to device: 6, " + String.format(java.util.Locale.ROOT, "%,d", 6L * 8 * N) + " bytes"), text);

        String printed = stderrOf(() -> AccRuntime.get().shutdown());
        assertTrue(printed.contains("kernel acc_ProfileFixtures_add_r0 launched 3 times"), printed);
        Map<?, ?> doc = ProfileAssertions.assertConsistent(Files.readString(json));
        assertTrue(((String) Json.get(doc, "device")).contains(Device.all().get(0).name()), doc::toString);
        assertEquals(3L, Json.number(doc, "regions", 0, "kernels", 0, "launches"));
        assertEquals(6L * 8 * N, Json.number(doc, "regions", 0, "toDevice", "bytes"));
        assertEquals(3L * 8 * N, Json.number(doc, "regions", 0, "toHost", "bytes"));
    }

    @Test
    void aDataRegionKeepsItsOwnCopiesAndTheKernelsRegionItsOwn() {
        Random r = new Random(62);
        double[] a = doubles(r, N);
        double[] b = doubles(r, N);
        double[] c = new double[N];
        Object token = AccRuntime.enterData(ProfileFixtures.class, "region", REGION, null, new Object[] {a, b, c, N});
        add(a, b, c);
        AccRuntime.exitData(token);
        // plain Java computes 0 here: dot runs on the device and returns the sum
        Object[] value = AccRuntime.offloadValue(ProfileFixtures.class, "dot", DOT, null, new Object[] {a, b, N});
        assertNotNull(value, "dot did not run on the device");
        double expected = ProfileFixtures.dot(a, b, N);
        assertEquals(expected, (Double) value[0], 1e-9 * N, "dot");

        Profiler.Snapshot s = AccRuntime.get().profile().snapshot();
        Profiler.RegionStats data = region(s, "region");
        assertEquals(Profiler.Kind.DATA, data.kind());
        assertEquals(1, data.entries());
        assertEquals(2, data.toDevice().copies());
        assertEquals(2L * 8 * N, data.toDevice().bytes());
        assertEquals(1, data.toHost().copies());
        assertEquals(8L * N, data.toHost().bytes());
        assertTrue(data.kernels().isEmpty());
        Profiler.RegionStats add = region(s, "add");
        assertEquals(0, add.toDevice().copies(), "a and b are present");
        assertEquals(1, add.toHost().copies(), "c copies out");
        assertEquals(8L * N, add.toHost().bytes());
        assertEquals(1, add.kernels().get(0).launches());
        assertTrue(add.wallNanos() <= data.wallNanos(), "the data region's wall time includes the call inside it");
        Profiler.RegionStats dot = region(s, "dot");
        assertEquals(1, dot.kernels().get(0).launches());
        assertEquals(2, dot.toDevice().copies());
        assertEquals(0, dot.toHost().copies(), "only the reduction's result comes back, not counted as data");
        ProfileAssertions.assertConsistent(ProfileFormat.json(s));
    }

    @Test
    void theReportGivesEachKernelsResources() {
        restart("acc4j.report", "true");
        Random r = new Random(63);
        double[] a = doubles(r, N);
        double[] b = doubles(r, N);
        String report = stderrOf(() -> {
            add(a, b, new double[N]);
            assertNotNull(AccRuntime.offloadValue(ProfileFixtures.class, "dot", DOT, null, new Object[] {a, b, N}));
        });
        Pattern p = Pattern.compile("acc4j: ProfileFixtures\\.java:\\d+: kernel (acc_ProfileFixtures_\\w+_r0)(?:_nc)?: (\\d+) registers, "
                + "(\\d+) bytes shared memory \\(static\\), (\\d+) bytes local memory per thread, at most (\\d+) threads per block");
        Matcher m = p.matcher(report);
        List<String> kernels = new ArrayList<>();
        while (m.find()) {
            kernels.add(m.group(1));
            assertTrue(Integer.parseInt(m.group(2)) > 0, m.group());
            assertTrue(Integer.parseInt(m.group(5)) >= 128 && Integer.parseInt(m.group(5)) <= 1024, m.group());
            if (m.group(1).endsWith("_dot_r0")) {
                assertTrue(Integer.parseInt(m.group(3)) > 0, "the reduction combines in shared memory: " + m.group());
            } else {
                assertEquals(0, Integer.parseInt(m.group(3)), m.group());
            }
        }
        // one line per variant loaded, on its first launch: the one without checks where the host proves them
        assertEquals(List.of("acc_ProfileFixtures_add_r0", "acc_ProfileFixtures_dot_r0"), kernels, report);
        assertTrue(report.contains("grid(ceil(trip(i) / 128) at most SMs * blocks per SM, 1, 1) x block(128, 1, 1): the grid"
                + " depends on run-time values"), report);
        Device d = Device.all().get(0);
        int perSm = Math.max(1, Math.min(32, d.maxThreadsPerMultiprocessor() / 128));
        long blocks = Math.min((N + 127) / 128, (long) d.multiprocessors() * perSm);
        assertTrue(report.contains("kernel acc_ProfileFixtures_add_r0: first launch with grid(" + blocks + ", 1, 1) x block(128, 1, 1)"),
                report);
        assertTrue(AccRuntime.get().report().startsWith("acc4j: no profile: profiling is off"), "the report alone is not a profile");
    }

    @Test
    void aDeviceNumberBeyondTheDevicesRunsOnTheHostAndSaysWhy() {
        int count = Device.all().size();
        List<String> warnings = new ArrayList<>();
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("org.acc4j");
        java.util.logging.Handler h = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                warnings.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(h);
        try {
            stderrOf(() -> restart("acc.device.num", Integer.toString(count)));
            assertFalse(AccRuntime.get().onDevice());
            // the message names the setting as it was given: here the system property
            // and where the methods run instead: the host's cores (the multicore target)
            String expected = "acc4j: -Dacc.device.num=" + count + " but there " + (count == 1
                    ? "is 1 CUDA device" : "are " + count + " CUDA devices")
                    + " (numbered from 0): @Kernels methods run on the host's cores (multicore)";
            assertTrue(warnings.stream().anyMatch(w -> w.startsWith(expected)), warnings::toString);
            assertFalse(AccRuntime.offload(ProfileFixtures.class, "add", ADD, null, new Object[] {new double[1],
                new double[1], new double[1], 1}), "runs on the host");
        } finally {
            jul.removeHandler(h);
            restart("acc.device.num", Integer.toString(count - 1));
        }
        assertTrue(AccRuntime.get().onDevice(), "the last device is a device");
        add(new double[N], new double[N], new double[N]);
    }
}
