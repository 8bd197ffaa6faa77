package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.util.Random;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;

/**
 * The pipeline sample's kernel compiles for the device (its async parameter is an ordinary scalar to the compiler) and,
 * run by the kernel interpreter with the mapping's index arithmetic, gives plain Java's result bit for bit.
 */
class PipelineInterpreterTest {
    @Test
    void transformMatchesPlainJava() throws Exception {
        Method m = Pipeline.class.getDeclaredMethod("transform", double[].class, double[].class, int.class, int.class,
                int.class);
        CompiledMethod compiled = CatalogInterpreterTest.compile(m);
        Random random = new Random(5);
        int n = 3001;
        double[] x = Check.random(random, n);
        double[] y = new double[n];
        double[] expected = new double[n];
        Pipeline.transformPlain(x, expected, n, 7);
        KernelInterpreter.run(compiled, new Object[] {x, y, n, 7, 2}, 4);
        for (int i = 0; i < n; i++) {
            assertEquals(Double.doubleToLongBits(expected[i]), Double.doubleToLongBits(y[i]), "element " + i);
        }
    }
}
