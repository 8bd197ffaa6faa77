package org.acc4j.runtime.gpu;

import static org.acc4j.compiler.fixtures.Arguments.assertSameElements;
import static org.acc4j.compiler.fixtures.Arguments.copy;
import static org.acc4j.compiler.fixtures.NarrowInputs.booleans;
import static org.acc4j.compiler.fixtures.NarrowInputs.bytes;
import static org.acc4j.compiler.fixtures.NarrowInputs.bytes2D;
import static org.acc4j.compiler.fixtures.NarrowInputs.chars;
import static org.acc4j.compiler.fixtures.NarrowInputs.shorts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Random;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Arrays of boolean, byte, short and char on the GPU: every kernel of {@link NarrowFixtures} through the runtime
 * against the same method run as plain Java on random inputs (negative bytes and shorts, chars above 32767, both
 * booleans; fixed seeds), every element compared; a {@code @Data} region; the {@code Acc} data routines, synchronous
 * and async, round-tripping one- and two-dimensional arrays through the device. Skips, saying why, where there is no
 * CUDA device.
 */
@Tag("gpu")
class NarrowGpuTest {
    /** More elements than a boolean[] copy stages at a time (1 MiB), with a partial last piece. */
    private static final int N = 3_000_017;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @AfterEach
    void drained() {
        if (AccRuntime.get().onDevice()) {
            Acc.waitAll();
        }
    }

    private static Method fixture(String name) {
        for (Method m : NarrowFixtures.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static String descriptor(String name) {
        Method m = fixture(name);
        return MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
    }

    /** Calls a fixture through the runtime as the agent would; asserts it ran on the device; returns its value. */
    private static Object call(String name, Object... args) {
        Method m = fixture(name);
        if (m.getReturnType() == void.class) {
            assertTrue(AccRuntime.offload(NarrowFixtures.class, name, descriptor(name), null, args), name + " ran on the host");
            return null;
        }
        Object[] v = AccRuntime.offloadValue(NarrowFixtures.class, name, descriptor(name), null, args);
        assertNotNull(v, name + " ran on the host");
        return v[0];
    }

    /** Runs the fixture as plain Java. */
    private static Object plain(String name, Object... args) throws Exception {
        Method m = fixture(name);
        m.setAccessible(true);
        try {
            return m.invoke(null, args);
        } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
    }

    static Object[] args(String kernel, long seed) {
        Random r = new Random(seed);
        return switch (kernel) {
            case "bytes" -> new Object[] {bytes(r, N), bytes(r, N), new int[N], N};
            case "chars" -> new Object[] {chars(r, N), chars(r, N), new int[N], N};
            case "shorts" -> new Object[] {shorts(r, N), shorts(r, N), new long[N], N};
            case "booleans" -> new Object[] {r.ints(N).toArray(), booleans(r, N), booleans(r, N), N};
            case "conversions" -> new Object[] {bytes(r, N), shorts(r, N), chars(r, N), new double[N], N};
            case "byteSum" -> new Object[] {bytes(r, N), N};
            case "charMax" -> new Object[] {chars(r, N), N};
            case "anySet" -> new Object[] {booleans(r, N), N};
            case "shortDot" -> new Object[] {shorts(r, N), shorts(r, N), N};
            case "bytes2D" -> new Object[] {bytes2D(r, 1001, 997), new short[1001][997], 1001, 997};
            case "upper2D" -> {
                char[][] c = jaggedChars(r, 2003);
                boolean[][] upper = new boolean[c.length][];
                for (int i = 0; i < c.length; i++) {
                    upper[i] = booleans(r, c[i].length);
                }
                yield new Object[] {c, upper, c.length};
            }
            case "masked" -> {
                boolean[][] mask = new boolean[999][];
                int[][] a = new int[999][];
                for (int i = 0; i < mask.length; i++) {
                    mask[i] = booleans(r, 1003);
                    a[i] = r.ints(1003).toArray();
                }
                yield new Object[] {mask, a, 999, 1003};
            }
            default -> throw new IllegalArgumentException(kernel);
        };
    }

    /** Rows of 0 to 2000 chars: letters, other ASCII and chars above 32767. */
    static char[][] jaggedChars(Random r, int rows) {
        char[][] c = new char[rows][];
        for (int i = 0; i < rows; i++) {
            c[i] = new char[r.nextInt(2001)];
            for (int j = 0; j < c[i].length; j++) {
                c[i][j] = (char) (r.nextBoolean() ? r.nextInt(128) : r.nextInt(65536));
            }
        }
        return c;
    }

    /** Gives every element of the arrays (rows too) new random values, in place. */
    static void scramble(Random r, Object... arrays) {
        for (Object a : arrays) {
            if (a instanceof Object[] rows) {
                scramble(r, rows);
            } else if (a instanceof boolean[] z) {
                for (int i = 0; i < z.length; i++) {
                    z[i] = r.nextBoolean();
                }
            } else if (a instanceof byte[] b) {
                r.nextBytes(b);
            } else if (a instanceof short[] s) {
                for (int i = 0; i < s.length; i++) {
                    s[i] = (short) r.nextInt();
                }
            } else if (a instanceof char[] c) {
                for (int i = 0; i < c.length; i++) {
                    c[i] = (char) r.nextInt();
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes", "chars", "shorts", "booleans", "conversions", "byteSum", "charMax", "anySet",
        "shortDot", "bytes2D", "upper2D", "masked"})
    void kernelsMatchPlainJava(String name) throws Exception {
        for (long seed = 1; seed <= 2; seed++) {
            Object[] device = args(name, seed);
            Object[] reference = copy(device);
            Object expected = plain(name, reference);
            Object value = call(name, device);
            String what = name + " (seed " + seed + ")";
            assertEquals(expected, value, what + " value");
            for (int k = 0; k < device.length; k++) {
                assertSameElements(what + " argument " + k, reference[k], device[k]);
            }
        }
    }

    @Test
    void aStaticCharTableIsReadThroughUnsignedBytes() throws Exception {
        Random r = new Random(71);
        NarrowFixtures.table = chars(r, 256);
        byte[] idx = bytes(r, N);
        int[] reference = new int[N];
        int[] device = new int[N];
        plain("lookup", idx, reference, N);
        call("lookup", idx, device, N);
        assertSameElements("lookup", reference, device);
    }

    @Test
    void anOutOfBoundsByteReadThrowsJavasExceptionAndWritesNothingBack() {
        byte[] a = bytes(new Random(72), N);
        short[] out = new short[N];
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> call("nextByte", a, out, N));
        assertEquals("Index " + N + " out of bounds for length " + N, e.getMessage());
        assertSameElements("out", new short[N], out);
    }

    @Test
    void aDataRegionOfNarrowArraysMatchesPlainJava() throws Exception {
        Random r = new Random(73);
        Object[] device = {bytes(r, N), booleans(r, N), new short[N], shorts(r, N), N};
        Object[] reference = copy(device);
        plain("region", reference);
        Object token = AccRuntime.enterData(NarrowFixtures.class, "region", descriptor("region"), null, device);
        assertNotNull(token, "no data region on the device");
        call("square", device[0], device[2], N);
        call("threshold", device[2], device[1], device[3], N);
        AccRuntime.exitData(token);
        assertSameElements("b (copyin)", reference[0], device[0]);
        assertSameElements("z (copy)", reference[1], device[1]);
        assertSameElements("tmp (create: never copied back)", new short[N], device[2]);
        assertSameElements("s (copyout)", reference[3], device[3]);
    }

    @Test
    void accRoutinesRoundTripNarrowArraysOfOneAndTwoDimensions() {
        Random r = new Random(74);
        byte[][] rect = bytes2D(r, 300, 301);
        boolean[][] flags = new boolean[257][];
        for (int i = 0; i < flags.length; i++) {
            flags[i] = booleans(r, r.nextInt(5000));
        }
        Object[] all = {bytes(r, N), booleans(r, N), shorts(r, N), chars(r, N), rect, jaggedChars(r, 301), flags};
        Object[] original = copy(all);
        Acc.copyin(all);
        for (Object a : all) {
            assertTrue(Acc.isPresent(a));
            assertNotEquals(0L, Acc.deviceptr(a));
        }
        scramble(r, all);
        Acc.updateHost(all);
        for (int k = 0; k < all.length; k++) {
            assertSameElements("copyin then updateHost, array " + k, original[k], all[k]);
        }
        scramble(r, all);
        Object[] sent = copy(all);
        Acc.updateDevice(all);
        scramble(r, all);
        Acc.copyout(all);
        for (int k = 0; k < all.length; k++) {
            assertSameElements("updateDevice then copyout, array " + k, sent[k], all[k]);
            assertFalse(Acc.isPresent(all[k]));
        }
    }

    @Test
    void aBooleanArrayIsOneByteZeroOrOnePerElementOnTheDevice() {
        Random r = new Random(75);
        boolean[] z = booleans(r, 4099);
        Acc.copyin(z);
        try (Context context = Context.open(Device.all().get(0))) {
            context.makeCurrent();
            byte[] bytes = new byte[z.length];
            CUdeviceptr p = new CUdeviceptr().withByteOffset(Acc.deviceptr(z));
            assertEquals(0, JCudaDriver.cuMemcpyDtoH(Pointer.to(bytes), p, bytes.length));
            for (int i = 0; i < z.length; i++) {
                assertEquals(z[i] ? 1 : 0, bytes[i], "element " + i);
            }
        } finally {
            Acc.delete(z);
        }
    }

    @Test
    void presentNarrowDataFeedsKernels() throws Exception {
        Object[] device = args("bytes2D", 76);
        Object[] reference = copy(device);
        plain("bytes2D", reference);
        Acc.copyin(device[0]);
        Acc.create(device[1]);
        call("bytes2D", device);
        assertSameElements("out before copyout", new short[1001][997], device[1]);
        Acc.copyout(device[1]);
        Acc.delete(device[0]);
        assertSameElements("out", reference[1], device[1]);
    }

    @Test
    void asyncCopiesAndKernelsOfNarrowArrays() throws Exception {
        Random r = new Random(77);
        // above the size pinned staging splits over several cores (8 MiB)
        int n = 9 << 20;
        boolean[] z = booleans(r, n);
        byte[] b = bytes(r, n);
        boolean[] zJava = z.clone();
        byte[] bJava = b.clone();
        plain("flipOn", zJava, bJava, n, 1);
        Acc.copyinAsync(1, z, b);
        call("flipOn", z, b, n, 1);
        Acc.updateHostAsync(1, z, b);
        Acc.wait(1);
        assertSameElements("z", zJava, z);
        assertSameElements("b", bJava, b);
        Acc.deleteAsync(1, z, b);

        char[][] c = jaggedChars(r, 97);
        Object[] original = copy(new Object[] {c});
        Acc.copyinAsync(2, (Object) c);
        scramble(r, (Object) c);
        Acc.updateHostAsync(2, (Object) c);
        Acc.wait(2);
        assertSameElements("char[][] through queue 2", original[0], c);
        Acc.copyoutAsync(2, (Object) c);
        Acc.waitAll();
        assertFalse(Acc.isPresent(z));
        assertFalse(Acc.isPresent(c));
    }
}
