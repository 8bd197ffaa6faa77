package org.acc4j.templates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class TemplateTest {
    private final Template t = Template.of("t", "ld.global.${T} %r1, [${PTR}];\nst.global.${T} [${PTR}], %r1;\n");

    @Test
    void listsAndFillsHoles() {
        assertEquals(new TreeSet<>(java.util.List.of("PTR", "T")), t.holes());
        assertEquals("ld.global.f64 %r1, [%rd2];\nst.global.f64 [%rd2], %r1;\n", t.fill(Map.of("T", "f64", "PTR", "%rd2")));
    }

    @Test
    void missingOrUnusedValuesAreErrorsNamingTheTemplate() {
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> t.fill(Map.of("T", "f64")));
        assertTrue(missing.getMessage().contains("template t") && missing.getMessage().contains("PTR"));
        IllegalArgumentException unused = assertThrows(IllegalArgumentException.class,
                () -> t.fill(Map.of("T", "f64", "PTR", "x", "EXTRA", "y")));
        assertTrue(unused.getMessage().contains("EXTRA"));
    }

    @Test
    void unknownTemplateIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> Template.load("no-such-template"));
    }
}
