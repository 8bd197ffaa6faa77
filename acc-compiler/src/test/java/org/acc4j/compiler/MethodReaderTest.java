package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.acc4j.compiler.fixtures.Kernels1D;
import org.acc4j.compiler.ir.IrPrinter;
import org.junit.jupiter.api.Test;

class MethodReaderTest {
    @Test
    void printsAll() throws Exception {
        for (String m : new String[] {"vectorAdd", "saxpy", "shifted", "intOps", "compareFloats", "downward", "longIndex", "withInner", "carried"}) {
            System.out.println(m + ":\n" + IrPrinter.print(TestClasses.read(Kernels1D.class, m)));
        }
        assertEquals(1, 1);
    }
}
