package org.acc4j.compiler.pass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.TestClasses;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.fixtures.PassFixtures;
import org.acc4j.compiler.frontend.MethodReader;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.ir.Verifier;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/** The IR verifier: well-formed IR from every fixture after each phase, and broken IR named. */
class VerifierTest {
    private static final Class<?>[] FIXTURES = {
        PassFixtures.class, org.acc4j.compiler.fixtures.Kernels1D.class, org.acc4j.compiler.fixtures.Nests.class,
        org.acc4j.compiler.fixtures.ReductionKernels.class, org.acc4j.compiler.fixtures.BoundsKernels.class,
        org.acc4j.compiler.fixtures.AtomicKernels.class, org.acc4j.compiler.fixtures.NarrowKernels.class,
        org.acc4j.compiler.fixtures.StridedLoops.class, org.acc4j.compiler.fixtures.SequentialLoops.class,
        org.acc4j.compiler.fixtures.IfReductionKernels.class, org.acc4j.compiler.fixtures.NotEqualLoops.class,
    };

    @Test
    void everyFixtureIsWellFormedAfterEachPhase() throws IOException {
        int methods = 0;
        int regions = 0;
        List<String> problems = new ArrayList<>();
        for (Class<?> c : FIXTURES) {
            ClassNode cn = TestClasses.node(c);
            for (MethodNode mn : cn.methods) {
                if (mn.name.startsWith("<") || (mn.access & Modifier.ABSTRACT) != 0) {
                    continue;
                }
                MethodBody m;
                try {
                    m = MethodReader.read(cn, mn);
                } catch (Unsupported | IllegalArgumentException e) {
                    continue;
                }
                methods++;
                problems.addAll(Verifier.problems("reading", m));
                List<Region> split;
                try {
                    split = RegionSplitter.split(m);
                } catch (Unsupported e) {
                    continue;
                }
                for (Region r : split) {
                    problems.addAll(Verifier.problems("region splitting", m, r));
                    try {
                        Region d = Parallelism.decide(r);
                        regions++;
                        problems.addAll(Verifier.problems("the parallelism decision", m, d));
                    } catch (Unsupported e) {
                        // a host nest: nothing more to check
                    }
                }
            }
        }
        assertEquals(List.of(), problems);
        assertTrue(methods > 50 && regions > 50, methods + " methods, " + regions + " regions");
    }

    @Test
    void brokenIrIsNamed() {
        MethodBody m = TestClasses.read(PassFixtures.class, "sum");
        Var ghost = new Var(99, Type.F64, "ghost");
        Stmt.For loop = (Stmt.For) m.body().get(1);
        Stmt.Assign bad = new Stmt.Assign(new Var(3, Type.I32, "k"),
                new Expr.Binary(org.acc4j.compiler.ir.BinOp.ADD, new Expr.Local(ghost), Expr.Const.i32(1)), 7);
        List<Stmt> body = new ArrayList<>(m.body());
        body.set(1, loop.withBody(List.of(bad, new Stmt.Break(8))));
        body.add(new Stmt.Break(9));
        MethodBody broken = new MethodBody(m.owner(), m.name(), m.descriptor(), m.isStatic(), m.sourceFile(), m.params(),
                body);
        List<String> p = Verifier.problems("a test", broken);
        assertTrue(p.contains("ghost (slot 99, F64) is read but never assigned"), p.toString());
        assertTrue(p.contains("(ghost + 1) mixes F64 and I32"), p.toString());
        assertTrue(p.contains("k (I32) is assigned a F64 (line 7)"), p.toString());
        assertTrue(p.contains("break outside a loop (line 9)"), p.toString());
        assertEquals(4, p.size(), p.toString());
    }

    @Test
    void everyAccessHasAnIdOfItsOwn() {
        MethodBody m = TestClasses.read(org.acc4j.compiler.fixtures.Kernels1D.class, "vectorAdd");
        Stmt.For loop = (Stmt.For) m.body().get(0);
        Stmt.Store st = (Stmt.Store) loop.body().get(0);
        Expr.Binary sum = (Expr.Binary) st.value();
        Expr.Load a = (Expr.Load) sum.left();
        Expr.Load b = (Expr.Load) sum.right();
        assertEquals(3, java.util.Set.of(a.access(), b.access(), st.access()).size(), "ids " + a + ", " + b + ", " + st);
        assertTrue(a.access() > 0 && b.access() > 0 && st.access() > 0);
        assertEquals(List.of(), Verifier.problems("reading", m));
        // a pattern (no id) placed in the IR, and a store that takes a load's id
        Expr pattern = new Expr.Binary(sum.op(), new Expr.Load(a.array(), a.index()), b);
        Stmt.Store stolen = new Stmt.Store(st.array(), null, st.index(), pattern, st.line(), b.access());
        MethodBody broken = new MethodBody(m.owner(), m.name(), m.descriptor(), m.isStatic(), m.sourceFile(), m.params(),
                List.of(loop.withBody(List.of(stolen)), m.body().get(1)));
        List<String> p = Verifier.problems("a test", broken);
        assertTrue(p.contains("a[i] has no access id (a pattern placed in the IR)"), p.toString());
        assertTrue(p.stream().anyMatch(x -> x.startsWith("the access id " + b.access() + " names both ")), p.toString());
        assertEquals(2, p.size(), p.toString());
    }

    @Test
    void checkThrowsNamingThePhaseWhenEnabled() {
        assertTrue(Verifier.ENABLED, "the tests run with -Dacc4j.verifyIr=true");
        MethodBody m = TestClasses.read(PassFixtures.class, "sum");
        List<Stmt> body = new ArrayList<>(m.body());
        body.add(0, new Stmt.Break(1));
        MethodBody broken = new MethodBody(m.owner(), m.name(), m.descriptor(), m.isStatic(), m.sourceFile(), m.params(),
                body);
        Verifier.Broken e = assertThrows(Verifier.Broken.class, () -> Verifier.check("a test", broken));
        assertTrue(e.getMessage().startsWith("IR of PassFixtures.sum after a test is malformed: break outside a loop"),
                e.getMessage());
    }
}
