package org.acc4j.compiler.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.acc4j.Kernels;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.frontend.Inliner;
import org.junit.jupiter.api.Test;

/**
 * Overridable methods expanded into kernels: the compiled method lists them, and a call runs on the device only when
 * neither {@code this}'s class nor the class of a parameter used as an object declares one of them again; a null such
 * parameter refuses the call too (plain Java then throws).
 */
class OverridableCallsTest {
    /** A class with an overridable helper, called on {@code this} and on a parameter. */
    public static class Shape {
        double scale = 2;

        double f(double x) {
            return scale * x + 1;
        }

        double g(double x) {
            return x * x;
        }

        @Kernels
        void apply(double[] out, double[] in, Shape other) {
            for (int i = 0; i < out.length; i++) {
                out[i] = f(in[i]) + other.g(in[i]);
            }
        }
    }

    /** Declares neither helper again. */
    public static class Plain extends Shape {
    }

    /** Declares {@code g} again. */
    public static class Other extends Plain {
        @Override
        double g(double x) {
            return -x;
        }
    }

    private static CompiledMethod compile() throws IOException {
        byte[] bytes;
        try (InputStream in = Shape.class.getResourceAsStream("OverridableCallsTest$Shape.class")) {
            bytes = in.readAllBytes();
        }
        Compiler.Result r = Compiler.compile(bytes, "apply",
                "([D[DLorg/acc4j/compiler/plan/OverridableCallsTest$Shape;)V", 90);
        assertTrue(r instanceof Compiler.Offload, () -> "apply stays on the host: " + ((Compiler.Host) r).reason());
        return ((Compiler.Offload) r).method();
    }

    @Test
    void eachCallChecksTheClassesOfItsReceivers() throws IOException {
        CompiledMethod m = compile();
        String shape = Shape.class.getName().replace('.', '/');
        assertEquals(List.of(new Inliner.Virtual(shape, "f", "(D)D", shape), new Inliner.Virtual(shape, "g", "(D)D",
                shape)), m.guards().virtuals());
        assertEquals(List.of(2), m.guards().receivers(), "other is used as an object");
        MethodLaunch plan = MethodLaunch.of(m);
        ValueReader none = (s, self, a) -> null;
        double[] out = new double[4];
        assertNull(plan.begin(none, new Shape(), new Object[] {out, out, new Plain()}).refusal());
        assertNull(plan.begin(none, new Plain(), new Object[] {out, out, new Shape()}).refusal());
        assertEquals(Other.class.getName() + " overrides g, which the kernels run as " + Shape.class.getName()
                + " declares it", plan.begin(none, new Shape(), new Object[] {out, out, new Other()}).refusal());
        assertTrue(plan.begin(none, new Other(), new Object[] {out, out, new Shape()}).refusal().contains(
                "overrides g"), "this's class is checked too");
        assertEquals("the parameter other, which the kernels use as an object, is null",
                plan.begin(none, new Shape(), new Object[] {out, out, null}).refusal());
    }
}
