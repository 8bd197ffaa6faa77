package org.acc4j.compiler.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.fixtures.MulticoreKernels;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.junit.jupiter.api.Test;

/**
 * Which written arrays a chunk saves for itself ({@link ChunkWrites}): those written only at the chunked loop's own
 * index ({@code out[i]}), not one written at another subscript, in two dimensions, or by an atomic operation.
 */
class ChunkWritesTest {
    private static CompiledMethod compile(String name) throws Exception {
        Method m = null;
        for (Method x : MulticoreKernels.class.getMethods()) {
            if (x.getName().equals(name)) {
                m = x;
            }
        }
        String resource = MulticoreKernels.class.getName().replace('.', '/') + ".class";
        byte[] bytes = MulticoreKernels.class.getClassLoader().getResourceAsStream(resource).readAllBytes();
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        return ((Compiler.Offload) Compiler.compile(bytes, name, desc, 90)).method();
    }

    /** The names of the arrays saved by chunk, null when none is. */
    private static Set<String> byChunk(String name) throws Exception {
        Region r = compile(name).kernels().get(0).region();
        JvmEmitter e = new JvmEmitter(r, List.of());
        Set<ArrayRef> written = new LinkedHashSet<>();
        collect(List.of(r.loop()), written);
        boolean[] marked = ChunkWrites.of(r, e.chunked, e.arrays, written);
        if (marked == null) {
            return null;
        }
        Set<String> out = new LinkedHashSet<>();
        for (int i = 0; i < marked.length; i++) {
            if (marked[i]) {
                out.add(e.arrays.get(i).name());
            }
        }
        return out;
    }

    private static void collect(List<Stmt> stmts, Set<ArrayRef> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st) {
                out.add(st.array());
            } else if (s instanceof Stmt.Atomic at) {
                out.add(at.array());
            } else if (s instanceof Stmt.If i) {
                collect(i.then(), out);
                collect(i.otherwise(), out);
            } else if (s instanceof Stmt.For f) {
                collect(f.body(), out);
            }
        }
    }

    @Test
    void onlyArraysWrittenAtTheChunkedIndex() throws Exception {
        assertEquals(Set.of("out"), byChunk("gatherFrom"));
        assertEquals(Set.of("out"), byChunk("gather"));
        assertEquals(Set.of("out"), byChunk("divide"));
        assertNull(byChunk("scale2d"), "rows of a two-dimensional array");
        assertNull(byChunk("histogram"), "an atomic increment");
        assertNull(byChunk("columns"), "written at a subscript of two loops");
    }
}
