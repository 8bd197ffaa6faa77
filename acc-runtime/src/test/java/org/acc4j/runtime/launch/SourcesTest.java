package org.acc4j.runtime.launch;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.acc4j.compiler.plan.ValueSource;
import org.junit.jupiter.api.Test;

/** Fields as the compiler names them, read as the JVM resolves them. */
class SourcesTest {
    static class Base {
        double[] x = new double[3];
        static int[] shared = new int[2];
    }

    static class Sub extends Base {
    }

    interface Constants {
        long[] TABLE = new long[4];
    }

    static class Impl implements Constants {
    }

    @Test
    void anInheritedFieldIsFoundThroughTheClassItIsReferencedBy() {
        Sub s = new Sub();
        Sources sources = new Sources(Sub.class);
        String sub = Sub.class.getName().replace('.', '/');
        assertSame(s.x, sources.value(new ValueSource.Field(sub, "x", false), s, new Object[0]));
        assertSame(Base.shared, sources.value(new ValueSource.Field(sub, "shared", true), null, new Object[0]));
        String impl = Impl.class.getName().replace('.', '/');
        assertSame(Constants.TABLE, new Sources(Impl.class).value(new ValueSource.Field(impl, "TABLE", true), null,
                new Object[0]));
    }

    @Test
    void aParametersFieldIsReadFromTheArgumentsObject() {
        Sub held = new Sub();
        Sub self = new Sub();
        String sub = Sub.class.getName().replace('.', '/');
        Sources sources = new Sources(Impl.class);
        ValueSource.Field f = new ValueSource.Field(sub, "x", false, 1, "b");
        assertSame(held.x, sources.value(f, self, new Object[] {self, held}));
        assertNull(sources.value(f, self, new Object[] {self, null}), "a null parameter's field reads as null");
    }

    static class Outer {
        Sub inner = new Sub();
        static Outer global = new Outer();
    }

    @Test
    void aFieldReachedThroughFieldsIsReadAlongItsPath() {
        String sub = Sub.class.getName().replace('.', '/');
        String outer = Outer.class.getName().replace('.', '/');
        Sources sources = new Sources(Impl.class);
        Outer o = new Outer();
        ValueSource.Hop inner = new ValueSource.Hop(outer, "inner", false);
        ValueSource.Field f = new ValueSource.Field(sub, "x", false, 0, "o.inner", java.util.List.of(inner));
        assertSame(o.inner.x, sources.value(f, null, new Object[] {o}));
        ValueSource.Field ofThis = new ValueSource.Field(sub, "x", false, -1, "inner", java.util.List.of(inner));
        assertSame(o.inner.x, sources.value(ofThis, o, new Object[0]));
        ValueSource.Field ofStatic = new ValueSource.Field(sub, "x", false, -1, "Outer.global.inner",
                java.util.List.of(new ValueSource.Hop(outer, "global", true), inner));
        assertSame(Outer.global.inner.x, sources.value(ofStatic, null, new Object[0]));
        o.inner = null;
        assertNull(sources.value(f, null, new Object[] {o}), "a null object on the way reads as null");
    }
}
