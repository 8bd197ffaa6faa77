package org.acc4j.compiler;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.acc4j.compiler.frontend.MethodReader;
import org.acc4j.compiler.ir.MethodBody;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/** Reads test fixture classes from the test class path. */
public final class TestClasses {
    private TestClasses() {
    }

    public static byte[] bytes(Class<?> c) {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ClassNode node(Class<?> c) {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes(c)).accept(cn, 0);
        return cn;
    }

    public static MethodNode method(ClassNode cn, String name) {
        return cn.methods.stream().filter(m -> m.name.equals(name)).findFirst().orElseThrow();
    }

    public static MethodBody read(Class<?> c, String name) {
        ClassNode cn = node(c);
        return MethodReader.read(cn, method(cn, name));
    }
}
