package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.acc4j.compiler.fixtures.Inlined;
import org.acc4j.compiler.fixtures.InlinedHelper;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.frontend.Inliner;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Mapping;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.objectweb.asm.tree.MethodNode;

/**
 * Inlining of the application's static, private and final methods: each kernel of {@link Inlined} compiled with
 * its callees expanded, through ptxas, and run by the interpreter against plain Java on seeded random inputs;
 * calls that cannot be inlined keep the method on the host with a diagnostic naming the callee.
 */
class InliningTest {
    /** Class files from the test class path, as the runtime reads them through the caller's class loader. */
    static final Inliner.ClassSource CLASS_PATH = name -> {
        try (InputStream in = ClassLoader.getSystemResourceAsStream(name + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    };

    static Compiler.Result compile(String name) {
        MethodNode m = TestClasses.method(TestClasses.node(Inlined.class), name);
        return Compiler.compile(TestClasses.bytes(Inlined.class), name, m.desc, 90, CLASS_PATH);
    }

    static CompiledMethod offload(String name) {
        Compiler.Result r = compile(name);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        return ((Compiler.Offload) r).method();
    }

    @ParameterizedTest(name = "{0} inlines {1}")
    @CsvSource(delimiter = ';', value = {
            "jacobiCalls; Inlined.average4 at line, Inlined.store at line",
            "mixed; Inlined.sq at line, Inlined.clampAbs at line, InlinedHelper.horner at line, Inlined.poly at line, Inlined.sign at line",
            "matvec2D; Inlined.dotRow at line",
            "viaHelper; Inlined.saxpyLoop at line",
            "sumSquares; Inlined.sq at line",
            "instanceCalls; Inlined.scaled at line, Inlined.weighted at line",
    })
    void inlinedKernelsGiveJavasResult(String name, String calls) throws Exception {
        CompiledMethod m = offload(name);
        String report = String.join("\n", m.report());
        for (String call : calls.split(", ")) {
            assertTrue(report.contains("inlined " + call), () -> "report of " + name + " lacks '" + call + "':\n" + report);
        }
        Path ptxas = Ptxas.find();
        for (KernelPlan k : m.kernels()) {
            if (ptxas != null) {
                assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry() + ":\n" + k.ptx());
            }
        }
        Method plainMethod = Arrays.stream(Inlined.class.getMethods()).filter(x -> x.getName().equals(name)).findFirst()
                .orElseThrow();
        for (int maxBlocks : new int[] {2, 1000}) {
            for (long seed = 1; seed <= 3; seed++) {
                Object[] device = args(name, seed);
                Object[] plain = NestInputs.copy(device);
                double[] weights = NestInputs.doubles(new Random(seed + 100), 61);
                Inlined selfDevice = new Inlined(weights.clone());
                Inlined selfPlain = new Inlined(weights.clone());
                boolean instance = !java.lang.reflect.Modifier.isStatic(plainMethod.getModifiers());
                Object expected = plainMethod.invoke(instance ? selfPlain : null, plain);
                Object actual = KernelInterpreter.run(m, sources(selfDevice, device), device, maxBlocks);
                String where = name + " (seed " + seed + ", " + maxBlocks + " blocks per axis at most)";
                for (int k = 0; k < device.length; k++) {
                    NestInputs.assertDeepEquals(plain[k], device[k], where + " argument " + k);
                }
                if (expected instanceof Double e) {
                    // a sum of squares: the device order differs from Java's, within n roundings
                    double tolerance = 1e-12 * Math.abs(e) * ((double[]) device[0]).length;
                    assertEquals(e, (Double) actual, tolerance, where);
                } else {
                    assertNull(actual, where);
                }
            }
        }
    }

    @Test
    void annotatedLoopsOfTheCalleeKeepTheirMapping() {
        Mapping map = offload("viaHelper").kernels().get(0).mapping();
        assertEquals(64, map.block()[0], map::toString);
    }

    @Test
    void jacobiThroughCallsCompilesToTheSameKernelAsWrittenInPlace() throws Exception {
        CompiledMethod inlined = offload("jacobiCalls");
        CompiledMethod inPlace = CompilerTest.offload(org.acc4j.compiler.fixtures.Nests.class, "jacobiAuto");
        assertEquals(inPlace.kernels().get(0).mapping().toString(), inlined.kernels().get(0).mapping().toString());
        Golden.check(PtxGoldenTest.GOLDEN, inlined.kernels().get(0).entry() + ".ptx", inlined.kernels().get(0).ptx());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
            "recursive; a call to Inlined.factorial, which cannot be inlined: a recursive call to Inlined.factorial (Inlined.java:",
            "throwingCallee; a call to Inlined.checked, which cannot be inlined: an allocation (new) of java.lang.IllegalArgumentException (Inlined.java:",
    })
    void callsThatCannotBeInlinedStayOnTheHost(String name, String construct) throws IOException {
        Diagnostic d = assertInstanceOf(Compiler.Host.class, compile(name)).reason();
        assertTrue(d.construct().startsWith(construct), () -> d.construct());
        // the diagnostic names the line of the call in the kernel
        int call = lineContaining(name, "out[i] = ");
        assertEquals(call, d.line(), d::toString);
    }

    @Test
    void anOverridableMethodIsExpandedAndItsReceiversClassChecked() {
        CompiledMethod m = offload("virtualCall");
        String inlined = Inlined.class.getName().replace('.', '/');
        assertEquals(List.of(new Inliner.Virtual(inlined, "overridable", "(D)D", inlined)), m.guards().virtuals());
        assertTrue(m.report().stream().anyMatch(l -> l.contains("inlined Inlined.overridable at line")
                && l.contains("(overridable: the receiver's class is checked at each call)")), m.report()::toString);
    }

    @Test
    void withoutTheOtherClassFileTheCallIsReported() {
        MethodNode m = TestClasses.method(TestClasses.node(Inlined.class), "mixed");
        Compiler.Result r = Compiler.compile(TestClasses.bytes(Inlined.class), "mixed", m.desc, 90);
        Diagnostic d = assertInstanceOf(Compiler.Host.class, r).reason();
        assertTrue(d.construct().contains("InlinedHelper"), d::toString);
        assertTrue(d.construct().contains("cannot be read"), d::toString);
    }

    /** The line in Inlined.java, after the declaration of {@code method}, of the first line containing {@code text}. */
    static int lineContaining(String method, String text) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("src/test/java/org/acc4j/compiler/fixtures/Inlined.java"));
        int i = 0;
        while (!lines.get(i).contains(" " + method + "(")) {
            i++;
        }
        while (!lines.get(i).contains(text)) {
            i++;
        }
        return i + 1;
    }

    static Function<ArrayRef.Source, Object> sources(Inlined self, Object[] args) {
        return s -> {
            if (s instanceof ArrayRef.Parameter p) {
                return args[p.index()];
            }
            ArrayRef.Field f = (ArrayRef.Field) s;
            try {
                Class<?> owner = Class.forName(f.owner().replace('/', '.'));
                Field field = owner.getDeclaredField(f.name());
                field.setAccessible(true);
                return field.get(f.isStatic() ? null : self);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        };
    }

    static Object[] args(String name, long seed) {
        Random r = new Random(seed);
        return switch (name) {
            case "jacobiCalls" -> new Object[] {NestInputs.doubles(r, 33 * 33), NestInputs.doubles(r, 33 * 33), 33};
            case "mixed" -> {
                double[] x = NestInputs.doubles(r, 203);
                x[5] = 0.0;
                x[6] = -0.0;
                yield new Object[] {NestInputs.doubles(r, 203), x, new int[203], 203};
            }
            case "matvec2D" -> {
                double[][] a = new double[27][];
                for (int i = 0; i < a.length; i++) {
                    a[i] = NestInputs.doubles(r, 31);
                }
                yield new Object[] {NestInputs.doubles(r, 27), a, NestInputs.doubles(r, 31), 27};
            }
            case "viaHelper" -> new Object[] {NestInputs.floats(r, 301), NestInputs.floats(r, 301), 1.75f, 301};
            case "sumSquares" -> new Object[] {NestInputs.doubles(r, 517), 517};
            case "instanceCalls" -> new Object[] {NestInputs.doubles(r, 61), NestInputs.doubles(r, 61), 61};
            default -> throw new IllegalArgumentException(name);
        };
    }



    static {
        // the static field the helper reads: a value the kernel must take from the class, not a constant
        InlinedHelper.ONE = 1.0;
    }
}
