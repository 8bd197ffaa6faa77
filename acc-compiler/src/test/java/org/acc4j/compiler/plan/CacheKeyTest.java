package org.acc4j.compiler.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.TestClasses;
import org.acc4j.compiler.fixtures.Inlined;
import org.junit.jupiter.api.Test;

/** The kernel cache key covers every class file the compiler read, its version, the target and the options. */
class CacheKeyTest {
    private static final String OWNER = "org/acc4j/compiler/fixtures/Inlined";
    private static final String HELPER = "org/acc4j/compiler/fixtures/InlinedHelper";

    private static byte[] classPath(String name) {
        try (InputStream in = ClassLoader.getSystemResourceAsStream(name + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Compiles Inlined.mixed (which inlines InlinedHelper.horner) with a key over what the compiler reads. */
    private static CacheKey compiled(Function<String, byte[]> classes) {
        String desc = TestClasses.method(TestClasses.node(Inlined.class), "mixed").desc;
        CacheKey key = new CacheKey(OWNER, TestClasses.bytes(Inlined.class), classes);
        Compiler.Result r = Compiler.compile(TestClasses.bytes(Inlined.class), "mixed", desc, 90, key::classFile);
        assertInstanceOf(Compiler.Offload.class, r, () -> "Inlined.mixed stays on the host: " + r);
        return key;
    }

    @Test
    void inlinedCalleesOfOtherClassesAreInTheKey() {
        String desc = TestClasses.method(TestClasses.node(Inlined.class), "mixed").desc;
        CacheKey plain = compiled(CacheKeyTest::classPath);
        List<String> read = plain.classesRead();
        assertEquals(OWNER, read.get(0));
        assertTrue(read.contains(HELPER), () -> "the compiler read " + read);
        // the same class files give the same key
        assertEquals(plain.of("mixed", desc, 90, ""), compiled(CacheKeyTest::classPath).of("mixed", desc, 90, ""));
        // a changed callee in another class gives another key
        CacheKey changed = new CacheKey(OWNER, TestClasses.bytes(Inlined.class), name -> {
            byte[] b = classPath(name);
            if (name.equals(HELPER)) {
                b = java.util.Arrays.copyOf(b, b.length + 1);
            }
            return b;
        });
        read.stream().skip(1).forEach(changed::classFile);
        assertNotEquals(plain.of("mixed", desc, 90, ""), changed.of("mixed", desc, 90, ""));
    }

    @Test
    void targetOptionsAndMissingClassesChangeTheKey() {
        byte[] owner = {1, 2, 3};
        CacheKey k = new CacheKey("a/A", owner, name -> name.equals("a/B") ? new byte[] {4} : null);
        String base = k.of("run", "()V", 90, "");
        assertEquals(64, base.length());
        assertNotEquals(base, k.of("run", "()V", 80, ""));
        assertNotEquals(base, k.of("run", "()V", 90, "fast"));
        assertNotEquals(base, k.of("go", "()V", 90, ""));
        k.classFile("a/Missing");
        String withMissing = k.of("run", "()V", 90, "");
        assertNotEquals(base, withMissing);
        k.classFile("a/B");
        assertNotEquals(withMissing, k.of("run", "()V", 90, ""));
        // the owner's bytes are copied: changing the caller's array later changes nothing
        owner[0] = 9;
        CacheKey same = new CacheKey("a/A", new byte[] {1, 2, 3}, name -> name.equals("a/B") ? new byte[] {4} : null);
        same.classFile("a/Missing");
        same.classFile("a/B");
        assertEquals(k.of("run", "()V", 90, ""), same.of("run", "()V", 90, ""));
    }
}
