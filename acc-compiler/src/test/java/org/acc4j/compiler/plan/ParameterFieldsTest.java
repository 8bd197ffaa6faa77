package org.acc4j.compiler.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.acc4j.Kernels;
import org.acc4j.compiler.Compiler;
import org.junit.jupiter.api.Test;

/**
 * Kernels that read the fields of a parameter's object ({@code a.data[i]}, {@code a.n}): the plan names each such
 * array after its parameter and reads it from the argument's object, a call whose such parameter is null is refused
 * before anything is launched (plain Java then throws), a field reached through fields holding objects
 * ({@code x.inner.data}) is read along its path, and what stays unsupported is refused with its reason.
 */
class ParameterFieldsTest {
    static final class Vec {
        final double[] data;
        final int n;
        final Inner inner = new Inner();

        Vec(double[] data) {
            this.data = data;
            this.n = data.length;
        }
    }

    static final class Inner {
        final double[] data = new double[4];
    }

    @Kernels
    static void axpy(Vec y, double alpha, Vec x) {
        for (int i = 0; i < y.n; i++) {
            y.data[i] += alpha * x.data[i];
        }
    }

    @Kernels
    static void fieldOfAField(Vec y, Vec x) {
        for (int i = 0; i < y.n; i++) {
            y.data[i] = x.inner.data[i & 3];
        }
    }

    @Kernels
    static void lengthThroughAField(Vec x, double[] out) {
        for (int i = 0; i < x.inner.data.length; i++) {
            out[i] = x.inner.data[i];
        }
    }

    @Kernels
    static void reassigned(Vec y, Vec x) {
        for (int i = 0; i < y.n; i++) {
            Vec v = (i & 1) == 0 ? x : y;
            y.data[i] = v.data[i];
        }
    }

    private static Compiler.Result compile(String name) throws IOException {
        Method m = Arrays.stream(ParameterFieldsTest.class.getDeclaredMethods()).filter(x -> x.getName().equals(name))
                .findFirst().orElseThrow();
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        byte[] bytes;
        try (InputStream in = ParameterFieldsTest.class.getResourceAsStream("ParameterFieldsTest.class")) {
            bytes = in.readAllBytes();
        }
        return Compiler.compile(bytes, name, desc, 90);
    }

    @Test
    void aParametersArraysAreReadFromItsObject() throws IOException {
        Compiler.Result r = compile("axpy");
        assertTrue(r instanceof Compiler.Offload, () -> "axpy stays on the host: " + ((Compiler.Host) r).reason().toString());
        MethodLaunch plan = MethodLaunch.of(((Compiler.Offload) r).method());
        String owner = Vec.class.getName().replace('.', '/');
        assertEquals(2, plan.arrays().size());
        for (ArrayUse a : plan.arrays()) {
            ValueSource.Field f = (ValueSource.Field) a.source();
            String holder = a.name().startsWith("y.") ? "y" : "x";
            assertEquals(holder + ".data", a.name());
            assertEquals(new ValueSource.Field(owner, "data", false, holder.equals("y") ? 0 : 2, holder), f);
            assertEquals(holder.equals("y"), a.written(), a.name());
        }
        double[] y = {1, 2, 3};
        Object[] args = {new Vec(y), 0.5, new Vec(new double[] {4, 5, 6})};
        assertNull(plan.begin((s, self, a) -> ((ValueSource.Field) s).target(self, a) == null ? null : y, null, args)
                .refusal());
        args[2] = null;
        assertEquals("the parameter x, which the kernels use as an object, is null",
                plan.begin((s, self, a) -> null, null, args).refusal());
    }

    @Test
    void aFieldOfAFieldIsReadThroughItsPath() throws IOException {
        Compiler.Result r = compile("fieldOfAField");
        assertTrue(r instanceof Compiler.Offload, () -> "stays on the host: " + ((Compiler.Host) r).reason().toString());
        MethodLaunch plan = MethodLaunch.of(((Compiler.Offload) r).method());
        String vec = Vec.class.getName().replace('.', '/');
        String inner = Inner.class.getName().replace('.', '/');
        ArrayUse read = plan.arrays().stream().filter(a -> !a.written()).findFirst().orElseThrow();
        assertEquals("x.inner.data", read.name());
        assertEquals(new ValueSource.Field(inner, "data", false, 1, "x.inner",
                java.util.List.of(new ValueSource.Hop(vec, "inner", false))), read.source());
    }

    @Test
    void aNullObjectOnTheWayToTheLoopsBoundRefusesTheCall() throws IOException {
        Compiler.Result r = compile("lengthThroughAField");
        assertTrue(r instanceof Compiler.Offload, () -> "stays on the host: " + ((Compiler.Host) r).reason().toString());
        MethodLaunch plan = MethodLaunch.of(((Compiler.Offload) r).method());
        Object[] args = {new Vec(new double[4]), new double[4]};
        String why = plan.begin((s, self, a) -> s instanceof ValueSource.Field f && !f.path().isEmpty() ? null : a[1],
                null, args).refusal();
        assertTrue(why != null && why.contains("meets a null reference") && why.contains("x.inner.data"), why);
    }

    /** A field of a field where an overridable method is inlined: the guard checks parameters' classes only. */
    static class Base {
        double scale(double v) {
            return 2 * v;
        }

        @Kernels
        void scaleInner(Vec x, double[] out) {
            for (int i = 0; i < out.length; i++) {
                out[i] = scale(x.inner.data[i & 3]);
            }
        }
    }

    @Test
    void aFieldOfAFieldWithAnOverridableCallAndAVariableOfTwoObjectsAreRefusedWithTheirReasons() throws IOException {
        byte[] bytes;
        try (InputStream in = Base.class.getResourceAsStream("ParameterFieldsTest$Base.class")) {
            bytes = in.readAllBytes();
        }
        Compiler.Result chained = Compiler.compile(bytes, "scaleInner", "(L" + Vec.class.getName().replace('.', '/')
                + ";[D)V", 90);
        assertTrue(chained instanceof Compiler.Host, "a field of a field with an overridable call");
        String why = ((Compiler.Host) chained).reason().toString();
        assertTrue(why.contains("the field inner holding an object") && why.contains("inlines an overridable method"), why);
        Compiler.Result either = compile("reassigned");
        assertTrue(either instanceof Compiler.Host, "a variable that refers to either parameter");
    }
}
