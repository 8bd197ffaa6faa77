package org.acc4j.compiler.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.acc4j.compiler.TestClasses;
import org.acc4j.compiler.fixtures.PassFixtures;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link Linear} forms of the subscripts of one nest, printed as {@code {index: coefficient} + rest}. */
class LinearTest {
    private static final List<Expr> subscripts = new ArrayList<>();
    private static Linear linear;

    @BeforeAll
    static void read() {
        List<Stmt> body = TestClasses.read(PassFixtures.class, "subscripts").body();
        Set<Var> indices = new LinkedHashSet<>();
        Set<Var> variant = new LinkedHashSet<>();
        Dataflow.loopIndices(body, indices);
        Dataflow.assigned(body, variant);
        Map<Var, Expr> defs = new HashMap<>();
        Stmt.For inner = (Stmt.For) ((Stmt.For) body.get(0)).body().get(0);
        for (Stmt s : inner.body()) {
            if (s instanceof Stmt.Assign a) {
                defs.put(a.var(), a.value());
            } else if (s instanceof Stmt.Store st) {
                subscripts.add(st.index());
            }
        }
        linear = new Linear(indices, variant, defs);
    }

    private static String form(int k) {
        Linear.Form f = linear.of(subscripts.get(k));
        if (f == null) {
            return null;
        }
        String terms = f.coefficients().entrySet().stream().map(e -> e.getKey() + ": " + e.getValue())
                .collect(Collectors.joining(", ", "{", "}"));
        return terms + " + " + f.rest();
    }

    @Test
    void aRowOffsetThroughALocalIsSubstituted() {
        assertEquals("{i: n, j: 1} + 1", form(0));
    }

    @Test
    void aSubtractedIndexGetsANegativeCoefficient() {
        Linear.Form f = linear.of(subscripts.get(1));
        assertEquals(2, f.coefficients().size());
        assertTrue(f.unit(linearVar(f, "j")), "j's coefficient is -1");
        assertEquals("n", f.coefficient(linearVar(f, "i")).toString());
    }

    @Test
    void aShiftIsAScale() {
        assertEquals("{i: 8} + 0", form(2));
    }

    @Test
    void productsOfIndicesAndLoadsAreNotLinear() {
        assertNull(form(3), "i*j");
        assertNull(form(4), "c[i]");
    }

    @Test
    void aNegatedIndexPlusAnInvariantTerm() {
        Linear.Form f = linear.of(subscripts.get(5));
        assertEquals(1, f.coefficients().size());
        assertTrue(f.unit(linearVar(f, "i")));
    }

    private static Var linearVar(Linear.Form f, String name) {
        return f.coefficients().keySet().stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow();
    }
}
