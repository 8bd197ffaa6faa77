package org.acc4j.compiler;

import static org.acc4j.compiler.fixtures.Arguments.assertSameElements;
import static org.acc4j.compiler.fixtures.Arguments.copy;
import static org.acc4j.compiler.fixtures.NarrowInputs.booleans;
import static org.acc4j.compiler.fixtures.NarrowInputs.bytes;
import static org.acc4j.compiler.fixtures.NarrowInputs.bytes2D;
import static org.acc4j.compiler.fixtures.NarrowInputs.chars;
import static org.acc4j.compiler.fixtures.NarrowInputs.shorts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.fixtures.NarrowKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.Elem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Arrays of boolean, byte, short and char: the loads and stores the compiler writes, and every kernel of
 * {@link NarrowKernels} run through the interpreter against plain Java on random inputs (negative bytes and
 * shorts, chars above 32767, both booleans), every element compared.
 */
class NarrowTest {
    private static final int N = 1000;

    /** Random arguments for each kernel of {@link NarrowKernels} from {@code seed}; scalars last. */
    static Object[] args(String kernel, long seed) {
        Random r = new Random(seed);
        return switch (kernel) {
            case "bytes" -> new Object[] {bytes(r, N), bytes(r, N), new int[N], N};
            case "chars" -> new Object[] {chars(r, N), chars(r, N), new int[N], N};
            case "shorts" -> new Object[] {shorts(r, N), shorts(r, N), new long[N], N};
            case "booleans" -> new Object[] {r.ints(N).toArray(), booleans(r, N), booleans(r, N), N};
            case "compare" -> new Object[] {r.doubles(N).toArray(), booleans(r, N), booleans(r, N), N};
            case "negate" -> new Object[] {booleans(r, N), N};
            case "conversions" -> new Object[] {bytes(r, N), shorts(r, N), chars(r, N), new double[N], N};
            case "byteSum" -> new Object[] {bytes(r, N), N};
            case "charMax" -> new Object[] {chars(r, N), N};
            case "anySet" -> new Object[] {booleans(r, N), N};
            case "shortDot" -> new Object[] {shorts(r, N), shorts(r, N), N};
            case "bytes2D" -> new Object[] {bytes2D(r, 37, 41), new short[37][41], 37, 41};
            case "upper2D" -> {
                char[][] c = new char[29][];
                boolean[][] upper = new boolean[29][];
                for (int i = 0; i < c.length; i++) {
                    c[i] = new char[r.nextInt(50)];
                    for (int j = 0; j < c[i].length; j++) {
                        // letters, other ASCII and chars above 32767
                        c[i][j] = (char) (r.nextBoolean() ? r.nextInt(128) : r.nextInt(65536));
                    }
                    upper[i] = booleans(r, c[i].length);
                }
                yield new Object[] {c, upper, c.length};
            }
            case "masked" -> {
                boolean[][] mask = new boolean[23][];
                int[][] a = new int[23][];
                for (int i = 0; i < mask.length; i++) {
                    mask[i] = booleans(r, 31);
                    a[i] = r.ints(31).toArray();
                }
                yield new Object[] {mask, a, 23, 31};
            }
            default -> throw new IllegalArgumentException(kernel);
        };
    }

    private static Method kernel(String name) {
        for (Method m : NarrowKernels.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes", "chars", "shorts", "booleans", "compare", "negate", "conversions", "byteSum",
        "charMax", "anySet", "shortDot", "bytes2D", "upper2D", "masked"})
    void interpreterMatchesPlainJava(String name) throws Exception {
        CompiledMethod m = CompilerTest.offload(NarrowKernels.class, name);
        for (int maxBlocks : new int[] {2, 1000}) {
            for (long seed = 1; seed <= 3; seed++) {
                Object[] device = args(name, seed);
                Object[] plain = copy(device);
                Object expected = kernel(name).invoke(null, plain);
                Object value = KernelInterpreter.run(m, device, maxBlocks);
                String what = name + " (seed " + seed + ", " + maxBlocks + " blocks per axis at most)";
                if (expected != null) {
                    // the interpreter gives a boolean as the int it computes with, as the runtime receives it
                    assertEquals(expected instanceof Boolean b ? (Object) (b ? 1 : 0) : expected, value, what + " value");
                }
                for (int k = 0; k < device.length; k++) {
                    assertSameElements(what + " argument " + k, plain[k], device[k]);
                }
            }
        }
    }

    @Test
    void loadsWidenAsJavaAndStoresKeepTheLowBits() {
        String bytes = ptx("bytes");
        assertTrue(bytes.contains("ld.global.nc.s8 "), bytes);
        assertTrue(bytes.contains("ld.global.s8 "), "b is read and written: no .nc\n" + bytes);
        assertTrue(bytes.contains("st.global.u8 "), bytes);
        assertTrue(!bytes.contains("cvt.s32.s8"), "the (byte) before the store is the store's own narrowing\n" + bytes);
        String chars = ptx("chars");
        assertTrue(chars.contains("ld.global.nc.u16 ") && chars.contains("st.global.u16 "), chars);
        String shorts = ptx("shorts");
        assertTrue(shorts.contains("ld.global.nc.s16 ") && shorts.contains("ld.global.s16 ")
                && shorts.contains("st.global.u16 "), shorts);
        String booleans = ptx("booleans");
        assertTrue(booleans.contains("ld.global.u8 ") && booleans.contains("st.global.u8 "), booleans);
        assertTrue(booleans.contains("and.b32"), "a boolean store keeps the lowest bit\n" + booleans);
        // a byte[][]'s rows hold bytes: an element's offset is its index, a short's twice its index
        String rows = ptx("bytes2D");
        assertTrue(rows.contains("ld.global.nc.s8 ") && rows.contains("mul.wide.s32 %rd") && rows.contains(", 2;")
                && rows.contains("st.global.u16 "), rows);
    }

    @Test
    void boundsOfNarrowAccessesAreProvenOnTheHost() {
        KernelPlan k = CompilerTest.offload(NarrowKernels.class, "bytes").kernels().get(0);
        assertTrue(k.unchecked() != null, "bytes has a variant without checks");
        assertEquals(6, k.unchecked().checks().size(), "every access of a, b and wide");
        assertTrue(!k.unchecked().ptx().contains("$L_oob_") && k.unchecked().ptx().contains("ld.global.nc.s8 "),
                k.unchecked().ptx());
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes", "chars"})
    void matchesGolden(String name) throws Exception {
        for (KernelPlan k : CompilerTest.offload(NarrowKernels.class, name).kernels()) {
            Golden.check(PtxGoldenTest.GOLDEN, k.entry() + ".ptx", k.ptx());
        }
    }

    @Test
    void everyKernelAssemblesWithPtxas() throws Exception {
        Path ptxas = Ptxas.find();
        org.junit.jupiter.api.Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        int assembled = 0;
        for (String name : PtxGoldenTest.offloaded(NarrowKernels.class)) {
            for (KernelPlan k : CompilerTest.offload(NarrowKernels.class, name).kernels()) {
                assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry() + ":\n" + k.ptx());
                assembled++;
                if (k.unchecked() != null) {
                    KernelPlan.Unchecked u = k.unchecked();
                    assertNull(Ptxas.assemble(ptxas, u.entry(), u.ptx()), () -> "ptxas rejects " + u.entry());
                    assembled++;
                }
            }
        }
        assertTrue(assembled >= 16, "assembled " + assembled);
    }

    @Test
    void everyKernelIsOffloaded() {
        assertEquals(15, PtxGoldenTest.offloaded(NarrowKernels.class).size(),
                PtxGoldenTest.offloaded(NarrowKernels.class)::toString);
    }

    @Test
    void dataClausesNameNarrowArrays() {
        CompiledMethod m = CompilerTest.offload(NarrowKernels.class, "shorts");
        List<DataClause> data = m.data();
        DataClause s = data.stream().filter(c -> c.array().name().equals("s")).findFirst().orElseThrow();
        assertEquals(Elem.SHORT, s.array().elem());
        assertEquals(DataClause.Kind.COPYIN, s.kind());
        assertTrue(s.explicit());
        assertEquals("short[]", s.array().javaType());
        List<DataClause> region = Compiler.dataRegion(TestClasses.bytes(NarrowKernels.class), "shorts", "([S[S[JI)V");
        assertEquals(List.of(new ArrayRef.Parameter(0, "s"), new ArrayRef.Parameter(1, "t")),
                region.stream().map(c -> c.array().source()).toList());
        CompiledMethod upper = CompilerTest.offload(NarrowKernels.class, "upper2D");
        assertEquals(List.of("char[][]", "boolean[][]"),
                upper.data().stream().map(c -> c.array().javaType()).toList());
    }

    @Test
    void anOutOfBoundsByteReadThrowsJavasException() {
        CompiledMethod m = CompilerTest.offload(NarrowKernels.class, "nextByte");
        byte[] a = bytes(new Random(7), 100);
        short[] out = new short[100];
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> KernelInterpreter.run(m, new Object[] {a, out, 100}, 4));
        assertEquals("Index 100 out of bounds for length 100", e.getMessage());
        short[] plain = new short[99];
        short[] device = new short[99];
        NarrowKernels.nextByte(a, plain, 99);
        KernelInterpreter.run(m, new Object[] {a, device, 99}, 4);
        assertSameElements("nextByte", plain, device);
    }

    private static String ptx(String name) {
        return CompilerTest.offload(NarrowKernels.class, name).kernels().get(0).ptx();
    }
}
