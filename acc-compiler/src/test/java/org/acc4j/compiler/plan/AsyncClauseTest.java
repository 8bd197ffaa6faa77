package org.acc4j.compiler.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import org.acc4j.Acc;
import org.acc4j.Kernels;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.junit.jupiter.api.Test;

/** Reading {@code @Kernels(async, asyncParam)} from compiled methods, as the offloader does. */
class AsyncClauseTest {
    @Kernels static void plain(double[] a) { }
    @Kernels(async = 2) static void two(double[] a) { }
    @Kernels(async = Acc.ASYNC_NOVAL) static void noval(double[] a) { }
    @Kernels(async = Acc.ASYNC_SYNC) static void sync(double[] a) { }
    @Kernels(async = -7) static void bad(double[] a) { }
    @Kernels(asyncParam = "q") static void param(double[] a, long big, int q) { }
    @Kernels(asyncParam = "q") void instanceParam(double d, int q, float[] b) { }
    @Kernels(asyncParam = "queue") static void missing(double[] a, int q) { }
    @Kernels(asyncParam = "x") static void notInt(double[] a, long x) { }
    @Kernels(async = 1, asyncParam = "q") static void both(double[] a, int q) { }
    @Kernels(async = 3, waitOn = {1, 2}) static void waits(double[] a) { }
    @Kernels(asyncParam = "q", waitOn = Acc.ASYNC_NOVAL) static void waitsParam(double[] a, int q) { }
    @Kernels(waitOn = {1}) static void waitsSync(double[] a) { }
    @Kernels(async = 0, waitOn = {-4}) static void waitsBad(double[] a) { }

    private static MethodNode method(String name) throws IOException {
        try (InputStream in = AsyncClauseTest.class.getResourceAsStream("AsyncClauseTest.class")) {
            ClassNode cn = new ClassNode();
            new ClassReader(in.readAllBytes()).accept(cn, 0);
            return cn.methods.stream().filter(m -> m.name.equals(name)).findFirst().orElseThrow();
        }
    }

    @Test
    void constants() throws IOException {
        assertSame(AsyncClause.SYNC, AsyncClause.of(method("plain")));
        assertSame(AsyncClause.SYNC, AsyncClause.of(method("sync")));
        AsyncClause two = AsyncClause.of(method("two"));
        assertEquals(new AsyncClause(2, -1, "async = 2", null), two);
        assertEquals(2, two.queue(new Object[] {new double[1]}));
        assertEquals(Acc.ASYNC_NOVAL, AsyncClause.of(method("noval")).queue(new Object[1]));
        AsyncClause bad = AsyncClause.of(method("bad"));
        assertEquals("-7 is not a queue: use 0 or more, Acc.ASYNC_NOVAL or Acc.ASYNC_SYNC", bad.problem());
        assertEquals("async = -7", bad.clause());
    }

    @Test
    void namedParameters() throws IOException {
        AsyncClause p = AsyncClause.of(method("param"));
        assertNull(p.problem());
        assertEquals(2, p.param(), "the argument index, past a two-slot long");
        assertEquals(5, p.queue(new Object[] {null, 1L, 5}));
        assertEquals(Acc.ASYNC_SYNC, p.queue(new Object[] {null, 1L, Acc.ASYNC_SYNC}));
        assertEquals(Acc.ASYNC_NOVAL, p.queue(new Object[] {null, 1L, Acc.ASYNC_NOVAL}));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.queue(new Object[] {null, 1L, -3}));
        assertEquals("-3 is not a queue: use 0 or more, Acc.ASYNC_NOVAL or Acc.ASYNC_SYNC", e.getMessage());
        assertEquals(1, AsyncClause.of(method("instanceParam")).param(), "slot 0 is this, the double takes two");
    }

    @Test
    void problemsAreNamed() throws IOException {
        assertTrue(AsyncClause.of(method("missing")).problem().startsWith("the method has no parameter named queue"));
        assertEquals("the parameter x is a long, not an int", AsyncClause.of(method("notInt")).problem());
        AsyncClause both = AsyncClause.of(method("both"));
        assertEquals("set async or asyncParam, not both", both.problem());
        assertTrue(both.synchronous());
    }

    @Test
    void waitOnIsRead() throws IOException {
        AsyncClause w = AsyncClause.of(method("waits"));
        assertNull(w.problem());
        assertEquals(3, w.queue(new Object[1]));
        assertArrayEquals(new int[] {1, 2}, w.waitOn());
        assertEquals("async = 3, waitOn = {1, 2}", w.clause());
        AsyncClause p = AsyncClause.of(method("waitsParam"));
        assertEquals(1, p.param());
        assertArrayEquals(new int[] {Acc.ASYNC_NOVAL}, p.waitOn());
        AsyncClause s = AsyncClause.of(method("waitsSync"));
        assertEquals("waitOn needs async or asyncParam (a synchronous call waits for every queue already)", s.problem());
        assertEquals("waitOn = {1}", s.clause());
        assertEquals("waitOn: -4 is not a queue: use 0 or more or Acc.ASYNC_NOVAL", AsyncClause.of(method("waitsBad")).problem());
        assertEquals(0, AsyncClause.of(method("two")).waitOn().length);
    }

    @Test
    void readFromTheClassFileByNameAndDescriptor() throws IOException {
        byte[] bytes;
        try (InputStream in = AsyncClauseTest.class.getResourceAsStream("AsyncClauseTest.class")) {
            bytes = in.readAllBytes();
        }
        assertEquals(new AsyncClause(2, -1, "async = 2", null), AsyncClause.of(bytes, "two", "([D)V"));
        assertEquals(AsyncClause.of(method("param")), AsyncClause.of(bytes, "param", "([DJI)V"));
        assertSame(AsyncClause.SYNC, AsyncClause.of(bytes, "plain", "([D)V"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AsyncClause.of(bytes, "two", "([F)V"));
        assertTrue(e.getMessage().contains("two([F)V"), e.getMessage());
    }
}
