package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.samples.Catalog.Entry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every sample kernel compiled and run by the mapped-kernel interpreter (every block and thread explicitly,
 * with race detection, grids capped so threads stride), against the plain-Java reference, bit for bit. This is
 * how CI checks each mapping's index arithmetic without a GPU.
 */
class CatalogInterpreterTest {
    static List<Entry> entries() {
        return Catalog.entries();
    }

    static CompiledMethod compile(Method m) throws IOException {
        String resource = m.getDeclaringClass().getName().replace('.', '/') + ".class";
        byte[] bytes;
        try (InputStream in = m.getDeclaringClass().getClassLoader().getResourceAsStream(resource)) {
            bytes = in.readAllBytes();
        }
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        Compiler.Result r = Compiler.compile(bytes, m.getName(), desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(m.getName() + " stays on the host: " + h.reason());
        }
        return ((Compiler.Offload) r).method();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("entries")
    void interpretedKernelMatchesPlainJava(Entry e) throws Exception {
        CompiledMethod m = compile(e.kernelMethod());
        Object[] args = e.args(CatalogPlainTest.SEED, 1);
        Object[] expected = Catalog.deepCopy(args);
        e.referenceMethod().invoke(null, expected);
        KernelInterpreter.run(m, args, 3);
        assertNull(Catalog.firstDifference(expected, args), e.name());
        assertTrue(Catalog.anyOutputNonZero(e, args), e.name() + " wrote nothing");
    }
}
