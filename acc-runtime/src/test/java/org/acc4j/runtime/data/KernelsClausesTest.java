package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.site.Clauses;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.Planner;
import org.acc4j.runtime.launch.CallScope;
import org.acc4j.runtime.launch.Guard;
import org.acc4j.runtime.launch.NotPresentException;
import org.acc4j.runtime.launch.Sites;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The per-call clauses of {@code @Kernels} on fake device memory: {@code ifParam} and {@code ifField} decide at each
 * call whether it enters the device at all (false: nothing is allocated or copied), a name that does not resolve is an
 * error naming the method, and {@code defaultPresent} refuses an array that is not present, naming it.
 */
class KernelsClausesTest {
    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);
    private final Guard guard = new Guard(new Guard.Target() {
        @Override
        public void makeCurrent() {
        }

        @Override
        public void rebuild() {
        }

        @Override
        public void abandon() {
        }
    }, table);
    private boolean device = true;
    private final List<String> lines = new ArrayList<>();
    private final Sites sites = new Sites(() -> device ? new Sites.Parts(guard, null, table) : null, () -> true,
            lines::add);

    private static byte[] bytes(String internalName) {
        try (InputStream in = KernelsClausesTest.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    private static MethodPlan plan(String method) throws Exception {
        ClassNode cn = new ClassNode();
        new ClassReader(bytes(ClauseFixtures.class.getName().replace('.', '/'))).accept(cn, 0);
        for (MethodNode mn : cn.methods) {
            if (mn.name.equals(method)) {
                return Planner.plan(cn, mn, KernelsClausesTest::bytes);
            }
        }
        throw new AssertionError("no method " + method);
    }

    private Object enter(String method, Object self, Object... args) throws Exception {
        MethodPlan p = plan(method);
        assertFalse(p.sites().isEmpty(), method + " has no launch site");
        int id = sites.register(p);
        return sites.enter(ClauseFixtures.class, self, id, args, new Object[p.entryHandles().size()], (o, pl, s, a) -> null);
    }

    @Test
    void ifParamIsReadAtEachCall() throws Exception {
        MethodPlan p = plan("scaled");
        assertEquals(new Clauses("ifParam = \"gpu\"", 2, null, false, false, null), p.clauses());
        double[] a = new double[64];
        Object on = enter("scaled", null, a, 64, true);
        assertNotNull(on);
        sites.exit(on, r -> { });
        assertNull(enter("scaled", null, a, 64, false));
        assertTrue(lines.contains("ClauseFixtures.java: ClauseFixtures.scaled: ifParam = \"gpu\": a call runs as plain"
                + " Java where it is false"), lines::toString);
        assertTrue(lines.stream().anyMatch(l -> l.endsWith("ClauseFixtures.scaled: ifParam = \"gpu\" is false: this"
                + " call runs as plain Java and moves nothing")), lines::toString);
    }

    @Test
    void aFalseConditionLeavesPresentArraysAndTheDeviceAlone() throws Exception {
        double[] a = new double[32];
        table.enterDynamic(a, Clause.COPYIN);
        long up = table.transferStats().copiesToDevice();
        long down = table.transferStats().copiesToHost();
        assertNull(enter("scaled", null, a, 32, false));
        assertEquals(up, table.transferStats().copiesToDevice());
        assertEquals(down, table.transferStats().copiesToHost());
        assertEquals(1, table.dynamicCount(a));
        assertEquals(0, table.structuredCount(a));
        assertEquals(1, table.size());
    }

    @Test
    void ifFieldReadsTheInstanceOrTheStaticField() throws Exception {
        ClauseFixtures self = new ClauseFixtures();
        double[] a = new double[8];
        assertNull(enter("field", self, (Object) a));
        self.useGpu = true;
        Object call = enter("field", self, (Object) a);
        assertNotNull(call);
        sites.exit(call, r -> { });
        ClauseFixtures.staticGpu = false;
        assertNull(enter("staticField", null, (Object) a));
        ClauseFixtures.staticGpu = true;
        try {
            Object s = enter("staticField", null, (Object) a);
            assertNotNull(s);
            sites.exit(s, r -> { });
        } finally {
            ClauseFixtures.staticGpu = false;
        }
    }

    @Test
    void aNameThatDoesNotResolveIsAnErrorNamingTheMethod() throws Exception {
        double[] a = new double[4];
        ClauseFixtures self = new ClauseFixtures();
        assertEquals("acc4j: @Kernels(ifParam = \"onGpu\") of ClauseFixtures.missing: the method has no parameter"
                + " named onGpu (parameter names need the class compiled with javac -g or -parameters)",
                assertThrows(IllegalStateException.class, () -> enter("missing", null, a, true)).getMessage());
        assertEquals("acc4j: @Kernels(ifParam = \"n\") of ClauseFixtures.notBoolean: the parameter n is a int, not a"
                + " boolean", assertThrows(IllegalStateException.class, () -> enter("notBoolean", null, a, 4)).getMessage());
        assertTrue(assertThrows(IllegalStateException.class, () -> enter("notBooleanField", self, (Object) a))
                .getMessage().endsWith("the field notFlag is a int, not a boolean"));
        assertTrue(assertThrows(IllegalStateException.class, () -> enter("instanceFieldOfStatic", null, (Object) a))
                .getMessage().endsWith("the field useGpu is an instance field and the method is static"));
        assertTrue(assertThrows(IllegalStateException.class, () -> enter("both", self, a, true))
                .getMessage().endsWith("set ifParam or ifField, not both"));
        assertEquals("acc4j: @Kernels(ifParam = \"gpu\") of ClauseFixtures.asyncIf: an async clause with ifParam,"
                + " ifField or defaultPresent is not supported yet",
                assertThrows(IllegalStateException.class, () -> enter("asyncIf", null, a, true)).getMessage());
        assertFalse(plan("asyncIf").async());
        // the error does not depend on a device
        device = false;
        assertThrows(IllegalStateException.class, () -> enter("missing", null, a, true));
    }

    @Test
    void aNestThatAsksOnDeviceIsALaunchSite() throws Exception {
        MethodPlan p = plan("where");
        assertEquals(1, p.sites().size());
        assertTrue(p.nests().get(0).offloaded(), () -> p.nests().get(0).reasons().toString());
        assertEquals(Clauses.NONE, p.clauses());
    }

    @Test
    void defaultPresentIsReadFromTheAnnotation() throws Exception {
        MethodPlan p = plan("present");
        assertTrue(p.clauses().defaultPresent());
        assertTrue(org.acc4j.compiler.site.PlanReport.lines(p).contains("ClauseFixtures.java: ClauseFixtures.present:"
                + " defaultPresent = true: every array a nest uses must be present"));
        // the names a refusal gives are the method's own
        assertEquals(List.of("a", "b"), p.sites().get(0).compiled().method().data().stream()
                .map(c -> c.array().name()).sorted().toList());
        assertFalse(plan("scaled").clauses().defaultPresent());
    }

    @Test
    void defaultPresentRefusesTheFirstArrayThatIsNotPresent() {
        double[] a = new double[16];
        double[] b = new double[16];
        table.enterDynamic(a, Clause.COPYIN);
        long up = table.transferStats().copiesToDevice();
        CallScope s = new CallScope(table, getClass().getClassLoader(), "ClauseFixtures.present");
        s.adopt(a, "a", Clause.COPYIN);
        NotPresentException e = assertThrows(NotPresentException.class, () -> s.adopt(b, "b", Clause.COPYOUT));
        assertEquals("b", e.array());
        assertTrue(e.getMessage().startsWith("acc4j: ClauseFixtures.present has defaultPresent = true, but the array b"
                + " (double[16]@"), e::getMessage);
        assertFalse(table.isPresent(b));
        s.close();
        assertEquals(up, table.transferStats().copiesToDevice());
        assertEquals(1, table.dynamicCount(a));
        assertEquals(0, table.structuredCount(a));
    }

    @Test
    void defaultPresentAcceptsArraysPresentFromAnEnclosingRegion() {
        double[] a = new double[16];
        double[] b = new double[16];
        table.enter(a, Clause.COPYIN);
        table.enter(b, Clause.COPYOUT);
        long up = table.transferStats().copiesToDevice();
        CallScope s = new CallScope(table, getClass().getClassLoader(), "ClauseFixtures.present");
        s.adopt(a, "a", Clause.COPYIN);
        s.adopt(b, "b", Clause.COPYOUT);
        s.written(b);
        s.close();
        // nothing moved: both stay present, and b goes back at the region's end
        assertEquals(up, table.transferStats().copiesToDevice());
        assertEquals(0, table.transferStats().copiesToHost());
        assertEquals(1, table.structuredCount(b));
    }
}
