package org.acc4j.compiler.ptx;

import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;

/**
 * Lowers the statements of one kernel to PTX at the current point of the kernel {@link KernelEmitter} writes: one
 * method per kind of statement, so a new kind does not compile until it has its PTX. Loops and the parallel levels
 * are the emitter's; this class dispatches to them.
 */
final class Statements implements Stmt.Visitor<Void> {
    private final KernelEmitter em;
    private final PtxWriter w;

    Statements(KernelEmitter em, PtxWriter w) {
        this.em = em;
        this.w = w;
    }

    @Override
    public Void visit(Stmt.Assign a) {
        Reg v = em.expr(a.value());
        w.mov(em.var(a.var()), v);
        em.mem.forget(a.var());
        return null;
    }

    @Override
    public Void visit(Stmt.Store st) {
        Elem elem = st.array().elem();
        boolean check = !em.unchecked.contains(st.access());
        RangeCheck proof = check ? null : em.proofs.get(st.access());
        // Java evaluates the subscript before the value; a linear proven subscript cannot throw, so its place may follow
        boolean linear = Addresses.linear(proof);
        Reg index = linear ? null : em.expr(st.index());
        Reg value = em.expr(Expressions.stored(elem, st.value()));
        Addresses.Place at = linear ? em.mem.unchecked(st.array(), st.row(), proof, st.line())
                : new Addresses.Place(st.row() == null ? em.mem.address(st.array(), index, st.line(), elem.bytes(), check)
                        : em.mem.address2(st.array(), st.row(), index, st.line(), check), 0);
        if (elem == Elem.BOOLEAN) {
            // bastore into a boolean[] keeps the value's lowest bit
            Reg bit = w.reg(Type.I32);
            w.op("and.b32", bit, value, 1);
            value = bit;
        }
        w.stGlobal(elem.ptxStore(), at.base(), at.offset(), value);
        return null;
    }

    @Override
    public Void visit(Stmt.Atomic at) {
        em.atomic(at);
        return null;
    }

    @Override
    public Void visit(Stmt.If i) {
        if (i.otherwise().isEmpty() && i.then().size() == 1 && i.then().get(0) instanceof Stmt.Break) {
            // if (c) break: one predicated branch
            w.comment(em.where(i.line()) + "if " + i.cond() + " break");
            w.braIf(em.predicate(i.cond()), true, em.breakTargets.get(em.breakTargets.size() - 1));
            return null;
        }
        w.comment(em.where(i.line()) + "if " + i.cond());
        Reg p = em.predicate(i.cond());
        String otherwise = w.newLabel("else");
        String end = w.newLabel("endif");
        w.braIf(p, false, otherwise);
        em.statements(i.then());
        w.bra(end);
        em.mem.label(otherwise);
        em.statements(i.otherwise());
        em.mem.label(end);
        return null;
    }

    @Override
    public Void visit(Stmt.While wl) {
        em.whileLoop(wl);
        return null;
    }

    @Override
    public Void visit(Stmt.Break br) {
        w.bra(em.breakTargets.get(em.breakTargets.size() - 1));
        return null;
    }

    @Override
    public Void visit(Stmt.For f) {
        Mapping.Level level = em.region.mapping() == null ? null : em.region.mapping().levelOf(f);
        if (level != null && level.outer() == f) {
            String end = w.newLabel("par_end");
            em.parallelLevel(level, end);
            em.mem.label(end);
        } else {
            em.sequentialLoop(f);
        }
        return null;
    }

    @Override
    public Void visit(Stmt.Return r) {
        // the method's return runs on the host, after the last em.region: a kernel has nothing to do for it
        return null;
    }
}
