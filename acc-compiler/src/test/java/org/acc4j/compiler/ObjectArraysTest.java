package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.ObjectArrays;
import org.acc4j.compiler.fixtures.ObjectArrays.Body;
import org.acc4j.compiler.fixtures.ObjectArrays.Particle;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.plan.Gathering;
import org.acc4j.compiler.plan.ValueSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * Arrays of objects ({@link ObjectArrays}): a nest that reads and writes its elements' primitive fields compiles with
 * one gathered array per field ({@link ArrayRef.Gathered}), and, its fields gathered before and scattered after as the
 * runtime does ({@link Gathering}), gives plain Java's objects on the kernel interpreter, every field of every element
 * compared; its PTX assembles. A carried dependence through a field and a field holding an array are refused with
 * their reasons; the checks before a launch refuse null elements and one object twice where a field is written.
 */
class ObjectArraysTest {
    static Object[] args(String kernel, long seed) {
        Random r = new Random(seed);
        int n = 700;
        return switch (kernel) {
            case "step" -> new Object[] {particles(r, n, false), 0.01, n};
            case "local" -> new Object[] {particles(r, n, false), new double[n]};
            case "forces" -> new Object[] {particles(r, 300, false), new double[300], 300};
            case "copy" -> new Object[] {particles(r, n, true), particles(r, n, true), n};
            default -> throw new IllegalArgumentException(kernel);
        };
    }

    static Particle[] particles(Random r, int n, boolean bodies) {
        Particle[] p = bodies ? new Body[n] : new Particle[n];
        for (int i = 0; i < n; i++) {
            Particle q = bodies ? new Body() : new Particle();
            q.x = r.nextDouble();
            q.y = r.nextGaussian();
            q.vx = r.nextGaussian();
            q.m = r.nextFloat();
            q.hits = r.nextInt(100);
            q.tag = (byte) r.nextInt();
            q.hot = r.nextBoolean();
            if (q instanceof Body b) {
                b.id = r.nextLong();
            }
            p[i] = q;
        }
        return p;
    }

    private static Method method(String name) {
        for (Method m : ObjectArrays.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    /** Runs {@code cm} on the interpreter with {@code args}, each gathered field made before and written back after. */
    static void interpret(CompiledMethod cm, Object[] args) {
        Map<ArrayRef.Source, Object> gathered = new HashMap<>();
        Map<ArrayRef.Source, Field> fields = new HashMap<>();
        KernelInterpreter.run(cm, s -> {
            if (s instanceof ArrayRef.Parameter p) {
                return args[p.index()];
            }
            ArrayRef.Gathered g = (ArrayRef.Gathered) s;
            Object[] objects = (Object[]) args[((ArrayRef.Parameter) g.objects()).index()];
            return gathered.computeIfAbsent(s, k -> {
                if (g.field() == null) {
                    return new boolean[objects.length];
                }
                Field f = Gathering.resolve(load(g.owner()), g.field());
                fields.put(s, f);
                return Gathering.gather(objects, f);
            });
        }, args, 3);
        fields.forEach((s, f) -> Gathering.scatter(
                (Object[]) args[((ArrayRef.Parameter) ((ArrayRef.Gathered) s).objects()).index()], f, gathered.get(s)));
    }

    private static Class<?> load(String internal) {
        try {
            return Class.forName(internal.replace('/', '.'));
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"step", "local", "forces", "copy"})
    void fieldsOfElementsGiveJavasObjects(String kernel) throws Exception {
        Compiler.Result r = CompilerTest.compile(ObjectArrays.class, kernel);
        assertTrue(r instanceof Compiler.Offload, () -> kernel + " stays on the host: " + ((Compiler.Host) r).reason());
        CompiledMethod cm = ((Compiler.Offload) r).method();
        Object[] expected = args(kernel, 11);
        method(kernel).invoke(null, expected);
        Object[] interpreted = args(kernel, 11);
        interpret(cm, interpreted);
        for (int i = 0; i < expected.length; i++) {
            assertFieldsEqual(expected[i], interpreted[i], kernel + ", argument " + i);
        }
        Path ptxas = Ptxas.find();
        Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        for (KernelPlan k : cm.kernels()) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
        }
    }

    /** Every field of every element, or the arrays themselves. */
    static void assertFieldsEqual(Object expected, Object actual, String what) throws IllegalAccessException {
        if (!(expected instanceof Particle[] e)) {
            NestInputs.assertDeepEquals(expected, actual, what);
            return;
        }
        Particle[] a = (Particle[]) actual;
        assertEquals(e.length, a.length, what);
        for (int i = 0; i < e.length; i++) {
            for (Class<?> c = e[i].getClass(); c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    Object x = f.get(e[i]);
                    Object y = f.get(a[i]);
                    assertEquals(x, y, what + ": element " + i + "." + f.getName());
                }
            }
        }
    }

    @Test
    void eachFieldIsAnArrayOfItsOwn() {
        CompiledMethod cm = ((Compiler.Offload) CompilerTest.compile(ObjectArrays.class, "step")).method();
        List<String> names = cm.kernels().get(0).params().stream().filter(p -> p instanceof KernelParam.ArrayData)
                .map(p -> ((KernelParam.ArrayData) p).array().name()).sorted().toList();
        assertEquals(List.of("p[].m", "p[].vx", "p[].x"), names);
    }

    @Test
    void aCarriedDependenceThroughAFieldStaysOnTheHost() {
        Diagnostic d = CompilerTest.host(ObjectArrays.class, "carried");
        assertTrue(d.toString().contains("p[].x"), d.toString());
    }

    @Test
    void aFieldHoldingAnArrayIsRefusedNamingIt() {
        Diagnostic d = CompilerTest.host(ObjectArrays.class, "arrayField");
        assertTrue(d.toString().contains("the field data (double[]) of an element of the array of objects h"),
                d.toString());
    }

    private static ValueSource.Gathered gathered(String array, String field) {
        return new ValueSource.Gathered(new ValueSource.Argument(0, array), "org/acc4j/compiler/fixtures/ObjectArrays$Particle",
                field, "D", array + "[]." + field);
    }

    private static Field field(String owner, String name) {
        return Gathering.resolve(load(owner), name);
    }

    @Test
    void nullElementsAndSharedWrittenElementsAreRefusedBeforeALaunch() {
        Particle[] p = particles(new Random(3), 8, false);
        Gathering ok = new Gathering();
        assertNull(ok.add(0, gathered("p", "x"), p, true, ObjectArraysTest::field));
        assertNull(ok.refusal());
        Object[] arrays = new Object[1];
        ok.gather(arrays);
        ((double[]) arrays[0])[5] = 42;
        ok.scatter(arrays);
        assertEquals(42, p[5].x);

        Gathering nulls = new Gathering();
        p[3] = null;
        assertNull(nulls.add(0, gathered("p", "x"), p, false, ObjectArraysTest::field));
        assertEquals("p[3] is null: Java throws its NullPointerException where the nest reads its field x",
                nulls.refusal());

        Particle[] q = particles(new Random(4), 8, false);
        q[6] = q[1];
        Gathering twice = new Gathering();
        assertNull(twice.add(0, gathered("q", "x"), q, true, ObjectArraysTest::field));
        assertTrue(twice.refusal().startsWith("q[1] and q[6] are one object"), twice.refusal());
        Gathering readOnly = new Gathering();
        assertNull(readOnly.add(0, gathered("q", "x"), q, false, ObjectArraysTest::field));
        assertNull(readOnly.refusal(), "an object twice among elements only read");

        Particle[] a = particles(new Random(5), 4, false);
        Particle[] b = particles(new Random(6), 4, false);
        b[2] = a[0];
        Gathering across = new Gathering();
        assertNull(across.add(0, gathered("a", "x"), a, true, ObjectArraysTest::field));
        assertNull(across.add(1, gathered("b", "x"), b, false, ObjectArraysTest::field));
        assertTrue(across.refusal().startsWith("a[0] and b[2] are one object"), across.refusal());

        assertNotNull(new Gathering().add(0, gathered("p", "x"), null, false, ObjectArraysTest::field));
    }
}
