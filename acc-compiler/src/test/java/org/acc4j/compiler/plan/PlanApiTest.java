package org.acc4j.compiler.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The plan package is what the runtime sees of the compiler: its public API names no IR type, no type of the JVM
 * backend and no ASM type (the plans use them inside the compiler module only).
 */
class PlanApiTest {
    private static final List<String> HIDDEN = List.of("org.acc4j.compiler.ir.", "org.acc4j.compiler.jvm.",
            "org.objectweb.asm.");

    private static List<Class<?>> planClasses() throws IOException, ClassNotFoundException {
        Path dir = Path.of("target/classes/org/acc4j/compiler/plan");
        assertTrue(Files.isDirectory(dir), () -> dir.toAbsolutePath() + " is not the plan package's classes");
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".class")) {
                    classes.add(Class.forName("org.acc4j.compiler.plan." + name.substring(0, name.length() - 6)));
                }
            }
        }
        return classes;
    }

    private static boolean visible(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static void check(String where, Type t, Set<String> found) {
        String name = t.getTypeName();
        for (String h : HIDDEN) {
            if (name.contains(h)) {
                found.add(where + ": " + name);
            }
        }
    }

    @Test
    void thePublicApiNamesNoCompilerInternals() throws Exception {
        Set<String> found = new TreeSet<>();
        List<Class<?>> classes = planClasses();
        assertTrue(classes.size() > 10, "the plan package's classes: " + classes);
        for (Class<?> c : classes) {
            if (!visible(c)) {
                continue;
            }
            check(c.getName(), c.getGenericSuperclass() == null ? Object.class : c.getGenericSuperclass(), found);
            for (Type i : c.getGenericInterfaces()) {
                check(c.getName(), i, found);
            }
            for (Method m : c.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic()) {
                    check(c.getName() + "." + m.getName(), m.getGenericReturnType(), found);
                    for (Type p : m.getGenericParameterTypes()) {
                        check(c.getName() + "." + m.getName(), p, found);
                    }
                }
            }
            for (Constructor<?> k : c.getDeclaredConstructors()) {
                if (Modifier.isPublic(k.getModifiers())) {
                    for (Type p : k.getGenericParameterTypes()) {
                        check(c.getName() + ".<init>", p, found);
                    }
                }
            }
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isPublic(f.getModifiers())) {
                    check(c.getName() + "." + f.getName(), f.getGenericType(), found);
                }
            }
        }
        assertEquals(Set.of(), found, "public members of the plan package that name the compiler's internals");
    }
}
