package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.acc4j.compiler.fixtures.Kernels1D;
import org.acc4j.compiler.ir.IrPrinter;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Stmt;
import org.junit.jupiter.api.Test;

/** Snapshots of the structured IR right after the front end, printed by {@link IrPrinter}. */
class MethodReaderTest {

    private static void assertIr(String method, String expected) {
        assertEquals(expected, IrPrinter.print(TestClasses.read(Kernels1D.class, method)), "IR of " + method);
    }

    @Test
    void vectorAdd() {
        assertIr("vectorAdd", """
                Kernels1D.vectorAdd(double[] a, double[] b, double[] c, int n)
                  for i = 0; i < n; i += 1
                    c[i] = (a[i] + b[i])
                  return
                """);
    }

    @Test
    void saxpyKeepsItsLoopAnnotation() {
        assertIr("saxpy", """
                Kernels1D.saxpy(float alpha, float[] x, float[] y, int n)
                  for i = 0; i < n; i += 1  @Loop(gang, vector=256)
                    y[i] = ((alpha * x[i]) + y[i])
                  return
                """);
    }

    @Test
    void shifted() {
        assertIr("shifted", """
                Kernels1D.shifted(long[] a, long[] b, int lo, int hi)
                  for i = lo; i < hi; i += 1  @Loop(gang=16, vector=128)
                    a[(i - lo)] = ((b[i] * 3L) - (b[i] / 7L))
                  return
                """);
    }

    /** {@code a && b} comes out as nested ifs, the else branch duplicated on both failing paths. */
    @Test
    void intOpsShortCircuitAnd() {
        assertIr("intOps", """
                Kernels1D.intOps(int[] out, int[] x, int[] y, int n)
                  for i = 0; i < n; i += 1
                    d = (x[i] / y[i])
                    m = (x[i] % y[i])
                    if (x[i] < y[i])
                      if (d != 0)
                        out[i] = (d - m)
                      else
                        out[i] = ((d * m) + i)
                    else
                      out[i] = ((d * m) + i)
                  return
                """);
    }

    @Test
    void compareFloats() {
        assertIr("compareFloats", """
                Kernels1D.compareFloats(double[] out, double[] x, double[] y, int n)
                  for i = 0; i < n; i += 1
                    if (x[i] < y[i])
                      out[i] = x[i]
                    else
                      out[i] = (y[i] - 1.5)
                  return
                """);
    }

    @Test
    void downwardStepMinusTwo() {
        assertIr("downward", """
                Kernels1D.downward(int[] a, int n)
                  for i = (n - 1); i >= 0; i -= 2
                    a[i] = (a[i] + 1)
                  return
                """);
        Stmt.For loop = (Stmt.For) TestClasses.read(Kernels1D.class, "downward").body().get(0);
        assertEquals(-2, loop.step());
    }

    @Test
    void withInnerSequentialLoop() {
        assertIr("withInner", """
                Kernels1D.withInner(double[] c, double[] a, int n, int m)
                  for i = 0; i < n; i += 1
                    s = 0.0
                    for k = 0; k < m; k += 1
                      s = (s + a[((i * m) + k)])
                    c[i] = s
                  return
                """);
        Stmt.For outer = (Stmt.For) TestClasses.read(Kernels1D.class, "withInner").body().get(0);
        Stmt.For inner = assertInstanceOf(Stmt.For.class, outer.body().get(1));
        assertEquals(LoopSpec.NONE, inner.spec());
    }

    @Test
    void longIndexSpillsTheCast() {
        assertIr("longIndex", """
                Kernels1D.longIndex(double[] a, long n)
                  for i = 0L; i < n; i += 1
                    tmp0 = (int) i
                    a[tmp0] = (a[tmp0] + 2.0)
                  return
                """);
    }

    @Test
    void carried() {
        assertIr("carried", """
                Kernels1D.carried(double[] a, int n)
                  for i = 1; i < n; i += 1
                    a[i] = (a[(i - 1)] + 1.0)
                  return
                """);
    }

    @Test
    void shiftedLoopAnnotationIsRead() {
        MethodBody body = TestClasses.read(Kernels1D.class, "shifted");
        Stmt.For loop = assertInstanceOf(Stmt.For.class, body.body().get(0));
        LoopSpec spec = loop.spec();
        assertTrue(spec.annotated());
        assertEquals(16, spec.gang());
        assertEquals(128, spec.vector());
        assertEquals(LoopSpec.OFF, spec.worker());
        assertEquals(1, spec.collapse());
        assertEquals(false, spec.seq());
        assertEquals(false, spec.independent());
    }

    @Test
    void saxpyLoopAnnotationIsAutoGang() {
        Stmt.For loop = (Stmt.For) TestClasses.read(Kernels1D.class, "saxpy").body().get(0);
        assertEquals(LoopSpec.AUTO, loop.spec().gang());
        assertEquals(256, loop.spec().vector());
    }

    @Test
    void unannotatedLoopHasNoSpec() {
        Stmt.For loop = (Stmt.For) TestClasses.read(Kernels1D.class, "vectorAdd").body().get(0);
        assertEquals(LoopSpec.NONE, loop.spec());
        assertEquals(false, loop.spec().annotated());
    }
}
