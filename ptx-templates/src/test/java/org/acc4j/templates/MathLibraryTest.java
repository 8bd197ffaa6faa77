package org.acc4j.templates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.acc4j.templates.MathLibrary.Routine;
import org.junit.jupiter.api.Test;

class MathLibraryTest {
    private static final Pattern DEFINED = Pattern.compile("(?m)^\\.(?:func|global)[^\\n]*?\\b(acc_math_\\w+)\\s*[(\\[]");
    private static final Pattern USED = Pattern.compile("\\b(acc_math_\\w+)\\b");

    private static List<String> definitions(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = DEFINED.matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void namesAndSymbols() {
        assertTrue(MathLibrary.has("exp", true));
        assertTrue(MathLibrary.has("exp", false));
        // floor, ceil, rint and sqrt are single PTX instructions: no routine
        assertFalse(MathLibrary.has("floor", true));
        assertEquals("acc_math_exp_f64", MathLibrary.symbol("exp", true));
        assertEquals("acc_math_exp_f32", MathLibrary.symbol("exp", false));
        // functions java.lang.Math has only for doubles have only the double routine
        for (String name : new String[] {"atan2", "atan", "asin", "acos", "hypot", "log10", "log1p", "expm1",
            "sinh", "cosh", "cbrt"}) {
            assertEquals("acc_math_" + name + "_f64", MathLibrary.symbol(name, true));
            assertFalse(MathLibrary.has(name, false), name + " has no float routine");
        }
        assertEquals(2, MathLibrary.Function.ATAN2.arity());
        assertEquals(1, MathLibrary.Function.CBRT.arity());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MathLibrary.symbol("floor", true));
        assertTrue(e.getMessage().contains("floor"));
    }

    @Test
    void eachRoutineComesWithItsDependenciesEachDefinedOnce() {
        for (Routine r : MathLibrary.all()) {
            String text = MathLibrary.moduleText(Set.of(r)).replaceAll("//[^\\n]*", "");
            List<String> defs = definitions(text);
            assertTrue(defs.contains(r.symbol()), r.symbol() + " is defined");
            assertEquals(defs.size(), new HashSet<>(defs).size(), "each definition once in " + defs);
            // every acc_math_ name used is defined, and before its first use
            Matcher m = USED.matcher(text);
            while (m.find()) {
                String name = m.group(1);
                int def = text.indexOf(name);
                assertTrue(defs.contains(name), r.symbol() + " uses undefined " + name);
                assertTrue(def <= m.start(), name + " used before its definition");
            }
        }
    }

    @Test
    void allRoutinesTogetherDefineEverythingOnce() {
        String text = MathLibrary.moduleText(MathLibrary.all());
        List<String> defs = definitions(text);
        assertEquals(defs.size(), new HashSet<>(defs).size(), "each definition once in " + defs);
        for (Routine r : MathLibrary.all()) {
            assertTrue(defs.contains(r.symbol()));
        }
        assertEquals("", MathLibrary.moduleText(List.of()));
        assertFalse(text.contains(".version") || text.contains(".target"), "module-level text only");
    }

    @Test
    void partsComeInDependencyOrder() {
        for (MathLibrary.Part p : MathLibrary.Part.values()) {
            for (MathLibrary.Part d : p.dependencies) {
                assertTrue(d.ordinal() < p.ordinal(), p + " is listed after its dependency " + d);
            }
        }
        assertEquals(List.of("exp_table", "exp_core_f64", "exp_f64", "exp_f32"),
                MathLibrary.parts(List.of(new Routine(MathLibrary.Function.EXP, false))));
    }
}
