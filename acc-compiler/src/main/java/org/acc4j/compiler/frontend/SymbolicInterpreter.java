package org.acc4j.compiler.frontend;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.Interpreter;

/**
 * The values of {@link MethodReader}'s symbolic execution: ASM's {@link Frame#execute} moves the operand stack and
 * the locals, and this interpreter computes what each instruction produces, an IR expression (or an array, a row or
 * {@code this}: a {@link Sym}). Instructions with an effect append their statement to the block's output as they
 * run: stores to locals and array elements, the atomics and the zeroing of a private array. Locals are read as IR
 * variables by slot, so a local's {@link Sym} is never read.
 *
 * <p>Invariant kept, as {@link MethodReader} documents: before a statement that writes a variable or an array, the
 * stack entries below it that read what it writes are moved to temporaries ({@link OperandStack#spill}); a value
 * that {@code dup} and its kind copy is made a leaf first, so that the two copies stay one value.
 *
 * <p>One interpreter reads one method, block after block ({@link #execute}); it is not shared.
 */
final class SymbolicInterpreter extends Interpreter<Sym> {
    private final MethodReader reader;
    /** The block's statements so far, and the stack below the instruction's operands (set by {@link #execute}). */
    private List<Stmt> out;
    private List<Object> stack;
    private int line;

    SymbolicInterpreter(MethodReader reader) {
        super(Opcodes.ASM9);
        this.reader = reader;
    }

    /**
     * Runs {@code insn} on {@code frame}, whose operand stack {@code stack} views, appending its statements to
     * {@code out}.
     *
     * @throws Unsupported for an instruction outside the subset, naming it and {@code line}
     */
    void execute(Frame<Sym> frame, List<Object> stack, AbstractInsnNode insn, List<Stmt> out, int line) {
        this.out = out;
        this.stack = stack;
        this.line = line;
        int op = insn.getOpcode();
        if (op == Opcodes.JSR || op == Opcodes.RET) {
            throw new Unsupported(line, "the bytecode instruction " + op);
        }
        if (op >= Opcodes.DUP && op <= Opcodes.DUP2_X2) {
            stabilize(op);
        }
        try {
            frame.execute(insn, this);
        } catch (IndexOutOfBoundsException e) {
            throw new Unsupported(line, "a value that flows in from another branch");
        } catch (AnalyzerException e) {
            throw new Unsupported(line, "the bytecode instruction " + op + " (" + e.getMessage() + ")");
        }
    }

    /** Makes leaves of the values {@code op} (a {@code dup} of some kind) copies: the two copies stay one value. */
    private void stabilize(int op) {
        int top = stack.size() - 1;
        if (top < 0) {
            throw new Unsupported(line, "a value that flows in from another branch");
        }
        stable(top);
        boolean wide = OperandStack.isWide(stack.get(top));
        if (op == Opcodes.DUP2_X2 && !wide) {
            throw new Unsupported(line, "the instruction dup2_x2 on narrow values");
        }
        if ((op == Opcodes.DUP2 || op == Opcodes.DUP2_X1) && !wide) {
            if (top < 1) {
                throw new Unsupported(line, "a value that flows in from another branch");
            }
            stable(top - 1);
        }
    }

    private void stable(int at) {
        if (stack.get(at) instanceof Expr e && !(e instanceof Expr.Const) && !(e instanceof Expr.Local)
                && !(e instanceof Expr.FieldValue)) {
            stack.set(at, reader.ops.temp(e, out, line));
        }
    }

    // ---------------------------------------------------------------- values

    @Override
    public Sym newValue(org.objectweb.asm.Type type) {
        return Sym.EMPTY;
    }

    @Override
    public Sym newOperation(AbstractInsnNode insn) {
        int op = insn.getOpcode();
        return Sym.of(switch (op) {
            case Opcodes.ICONST_M1, Opcodes.ICONST_0, Opcodes.ICONST_1, Opcodes.ICONST_2, Opcodes.ICONST_3,
                 Opcodes.ICONST_4, Opcodes.ICONST_5 -> Expr.Const.i32(op - Opcodes.ICONST_0);
            case Opcodes.LCONST_0, Opcodes.LCONST_1 -> Expr.Const.i64(op - Opcodes.LCONST_0);
            case Opcodes.FCONST_0, Opcodes.FCONST_1, Opcodes.FCONST_2 -> Expr.Const.f32(op - Opcodes.FCONST_0);
            case Opcodes.DCONST_0, Opcodes.DCONST_1 -> Expr.Const.f64(op - Opcodes.DCONST_0);
            case Opcodes.BIPUSH, Opcodes.SIPUSH -> Expr.Const.i32(((IntInsnNode) insn).operand);
            case Opcodes.LDC -> MethodReader.constant(((LdcInsnNode) insn).cst, line);
            case Opcodes.GETSTATIC -> reader.acc.field((FieldInsnNode) insn, null, line);
            case Opcodes.NEW -> {
                String cls = ((TypeInsnNode) insn).desc;
                if (!reader.objectClasses.containsKey(cls)) {
                    throw new Unsupported(line, "an allocation (new) of " + cls.replace('/', '.'));
                }
                yield new MethodReader.Fresh(cls);
            }
            case Opcodes.ACONST_NULL -> throw new Unsupported(line, "null");
            default -> throw new Unsupported(line, "the bytecode instruction " + op);
        });
    }

    @Override
    public Sym copyOperation(AbstractInsnNode insn, Sym value) {
        int op = insn.getOpcode();
        switch (op) {
            case Opcodes.ILOAD, Opcodes.LLOAD, Opcodes.FLOAD, Opcodes.DLOAD -> {
                int slot = ((VarInsnNode) insn).var;
                return Sym.of(new Expr.Local(reader.var(slot, MethodReader.loadType(op), insn)));
            }
            case Opcodes.ALOAD -> {
                return Sym.of(reader.acc.reference(((VarInsnNode) insn).var, line));
            }
            case Opcodes.ISTORE, Opcodes.LSTORE, Opcodes.FSTORE, Opcodes.DSTORE -> {
                Expr v = expr(value);
                Var local = reader.var(((VarInsnNode) insn).var,
                        MethodReader.loadType(op - (Opcodes.ISTORE - Opcodes.ILOAD)), insn.getNext());
                reader.ops.assign(local, v, stack, out, line);
                return value;
            }
            case Opcodes.ASTORE -> {
                int slot = ((VarInsnNode) insn).var;
                if (value.value() instanceof MethodReader.Fresh f) {
                    reader.acc.storeObject(slot, f.cls(), null, stack, out, line, insn);
                    return value;
                }
                if (value.value() instanceof MethodReader.Obj o) {
                    reader.acc.storeObject(slot, o.cls(), o, stack, out, line, insn);
                    return value;
                }
                if (value.value() == MethodReader.THIS) {
                    // an inlined instance method's receiver
                    reader.thisSlots.add(slot);
                    return value;
                }
                if (value.value() instanceof MethodReader.Holder h) {
                    // an inlined method's receiver that is an object parameter, or an object reached through fields
                    if (h.param() != null) {
                        reader.objects.add(h.param().index());
                    }
                    Object old = reader.holderSlots.putIfAbsent(slot, h);
                    if (old != null && !old.equals(h) || reader.acc.paramAt(slot) != null) {
                        throw new Unsupported(line, "a variable that refers to different objects");
                    }
                    return value;
                }
                if (value.value() instanceof ObjectElement e) {
                    reader.acc.bindElement(slot, e, stack, out, line);
                    return value;
                }
                if (value.value() instanceof ObjectArray o) {
                    reader.acc.bindObjects(slot, o, line);
                    return value;
                }
                if (value.value() instanceof MethodReader.Row) {
                    Var rv = reader.rowSlots.get(slot);
                    if (rv != null) {
                        reader.ops.spill(stack, out, line, rv, false);
                    }
                }
                reader.acc.bindArray(slot, value.value(), out, line);
                return value;
            }
            default -> {
                // dup, swap and their kind: the values were made leaves before (stabilize)
                return value;
            }
        }
    }

    @Override
    public Sym unaryOperation(AbstractInsnNode insn, Sym value) {
        int op = insn.getOpcode();
        switch (op) {
            case Opcodes.IINC -> {
                IincInsnNode inc = (IincInsnNode) insn;
                Var v = reader.var(inc.var, Type.I32, insn);
                reader.ops.assign(v, new Expr.Binary(BinOp.ADD, new Expr.Local(v), Expr.Const.i32(inc.incr)), stack,
                        out, line);
                return Sym.EMPTY;
            }
            case Opcodes.INEG, Opcodes.LNEG, Opcodes.FNEG, Opcodes.DNEG -> {
                return Sym.of(new Expr.Unary(UnOp.NEG, expr(value)));
            }
            case Opcodes.I2L, Opcodes.F2L, Opcodes.D2L -> {
                return Sym.of(new Expr.Convert(Type.I64, expr(value)));
            }
            case Opcodes.I2F, Opcodes.L2F, Opcodes.D2F -> {
                return Sym.of(new Expr.Convert(Type.F32, expr(value)));
            }
            case Opcodes.I2D, Opcodes.L2D, Opcodes.F2D -> {
                return Sym.of(new Expr.Convert(Type.F64, expr(value)));
            }
            case Opcodes.L2I, Opcodes.F2I, Opcodes.D2I -> {
                return Sym.of(new Expr.Convert(Type.I32, expr(value)));
            }
            case Opcodes.I2B -> {
                return Sym.of(new Expr.Unary(UnOp.TO_BYTE, expr(value)));
            }
            case Opcodes.I2S -> {
                return Sym.of(new Expr.Unary(UnOp.TO_SHORT, expr(value)));
            }
            case Opcodes.I2C -> {
                return Sym.of(new Expr.Unary(UnOp.TO_CHAR, expr(value)));
            }
            case Opcodes.ARRAYLENGTH -> {
                Object arr = value.value();
                if (arr instanceof ObjectArray o) {
                    return Sym.of(Accesses.objectsLength(o));
                }
                return Sym.of(arr instanceof MethodReader.Row r ? new Expr.Length(r.array(), r.row())
                        : new Expr.Length(OperandStack.asArray(arr, line, 0)));
            }
            case Opcodes.GETFIELD -> {
                return Sym.of(reader.acc.field((FieldInsnNode) insn, value.value(), line));
            }
            case Opcodes.PUTSTATIC -> throw new Unsupported(line, "an assignment to the field " + ((FieldInsnNode) insn).name);
            case Opcodes.NEWARRAY -> {
                return Sym.of(reader.acc.newArray((IntInsnNode) insn, value.value(), out, line));
            }
            case Opcodes.ANEWARRAY -> throw new Unsupported(line, "an allocation (new)");
            case Opcodes.ATHROW -> throw new Unsupported(line, "a throw");
            case Opcodes.MONITORENTER, Opcodes.MONITOREXIT -> throw new Unsupported(line, "a synchronized block");
            case Opcodes.CHECKCAST -> {
                if (value.value() instanceof MethodReader.Obj o && o.cls().equals(((TypeInsnNode) insn).desc)) {
                    return value;
                }
                // the cast javac puts after a clone of a private array
                if (!(value.value() instanceof ArrayRef a && a.source() instanceof ArrayRef.Private
                        && ((TypeInsnNode) insn).desc.equals("[" + a.elem().descriptor()))) {
                    throw new Unsupported(line, "a cast or instanceof on a reference");
                }
                return value;
            }
            case Opcodes.INSTANCEOF -> throw new Unsupported(line, "a cast or instanceof on a reference");
            case Opcodes.TABLESWITCH, Opcodes.LOOKUPSWITCH -> throw new Unsupported(line, "a switch");
            case Opcodes.ARETURN -> {
                // an inlined method may return an object it makes or is given; the inliner turns the return into a jump
                if (reader.callee && (value.value() instanceof MethodReader.Obj || value.value() instanceof MethodReader.Fresh)) {
                    return null;
                }
                throw new Unsupported(line, "a method that returns a reference");
            }
            default -> throw new Unsupported(line, "the bytecode instruction " + op);
        }
    }

    @Override
    public Sym binaryOperation(AbstractInsnNode insn, Sym value1, Sym value2) {
        int op = insn.getOpcode();
        switch (op) {
            case Opcodes.IALOAD, Opcodes.LALOAD, Opcodes.FALOAD, Opcodes.DALOAD, Opcodes.BALOAD, Opcodes.CALOAD,
                 Opcodes.SALOAD -> {
                Expr index = expr(value2);
                Object arr = value1.value();
                if (arr instanceof MethodReader.Row r) {
                    Accesses.checkElement(r.array(), op, line);
                    return Sym.of(new Expr.Load(r.array(), r.row(), index, reader.nextAccess()));
                }
                ArrayRef a = OperandStack.asArray(arr, line, 1);
                Accesses.checkElement(a, op, line);
                return Sym.of(new Expr.Load(a, null, index, reader.nextAccess()));
            }
            case Opcodes.AALOAD -> {
                Expr index = expr(value2);
                if (value1.value() instanceof ObjectArray o) {
                    return Sym.of(new ObjectElement(o, index));
                }
                ArrayRef a = OperandStack.asArray(value1.value(), line, 2);
                return Sym.of(new MethodReader.Row(a, index));
            }
            case Opcodes.IADD, Opcodes.LADD, Opcodes.FADD, Opcodes.DADD -> {
                return binary(BinOp.ADD, value1, value2);
            }
            case Opcodes.ISUB, Opcodes.LSUB, Opcodes.FSUB, Opcodes.DSUB -> {
                return binary(BinOp.SUB, value1, value2);
            }
            case Opcodes.IMUL, Opcodes.LMUL, Opcodes.FMUL, Opcodes.DMUL -> {
                return binary(BinOp.MUL, value1, value2);
            }
            case Opcodes.IDIV, Opcodes.LDIV, Opcodes.FDIV, Opcodes.DDIV -> {
                return binary(BinOp.DIV, value1, value2);
            }
            case Opcodes.IREM, Opcodes.LREM -> {
                return binary(BinOp.REM, value1, value2);
            }
            case Opcodes.FREM, Opcodes.DREM -> throw new Unsupported(line, "the floating-point remainder %");
            case Opcodes.ISHL, Opcodes.LSHL -> {
                return binary(BinOp.SHL, value1, value2);
            }
            case Opcodes.ISHR, Opcodes.LSHR -> {
                return binary(BinOp.SHR, value1, value2);
            }
            case Opcodes.IUSHR, Opcodes.LUSHR -> {
                return binary(BinOp.USHR, value1, value2);
            }
            case Opcodes.IAND, Opcodes.LAND -> {
                return binary(BinOp.AND, value1, value2);
            }
            case Opcodes.IOR, Opcodes.LOR -> {
                return binary(BinOp.OR, value1, value2);
            }
            case Opcodes.IXOR, Opcodes.LXOR -> {
                return binary(BinOp.XOR, value1, value2);
            }
            case Opcodes.LCMP, Opcodes.FCMPL, Opcodes.DCMPL, Opcodes.FCMPG, Opcodes.DCMPG -> {
                Expr r = expr(value2);
                Expr l = expr(value1);
                return Sym.of(new Expr.Cmp3(l, r, op == Opcodes.FCMPG || op == Opcodes.DCMPG));
            }
            case Opcodes.PUTFIELD -> {
                FieldInsnNode f = (FieldInsnNode) insn;
                if (value1.value() instanceof MethodReader.Obj o) {
                    reader.ops.assign(reader.objectField(o.slot(), o.cls(), f.name, insn, line), expr(value2), stack, out, line);
                    return null;
                }
                if (value1.value() instanceof ObjectElement e) {
                    Expr v = expr(value2);
                    ArrayRef a = reader.acc.gathered(e.array(), f, line);
                    reader.ops.spill(stack, out, line, null, true);
                    out.add(new Stmt.Store(a, null, e.index(), v, line, reader.nextAccess()));
                    return null;
                }
                if (value1.value() == MethodReader.THIS && reader.callee && reader.method.name.equals("<init>")) {
                    // a constructor read on its own, to check it: where it is inlined, this is the object it makes
                    expr(value2);
                    return null;
                }
                throw new Unsupported(line, "an assignment to the field " + f.name);
            }
            default -> throw new Unsupported(line, "the bytecode instruction " + op);
        }
    }

    private Sym binary(BinOp op, Sym left, Sym right) {
        Expr r = expr(right);
        Expr l = expr(left);
        return Sym.of(new Expr.Binary(op, l, r));
    }

    @Override
    public Sym ternaryOperation(AbstractInsnNode insn, Sym value1, Sym value2, Sym value3) {
        int op = insn.getOpcode();
        if (op == Opcodes.AASTORE) {
            throw new Unsupported(line, "a store of a row into an array of arrays");
        }
        Expr value = expr(value3);
        Expr index = expr(value2);
        Object arr = value1.value();
        reader.ops.spill(stack, out, line, null, true);
        int load = op - (Opcodes.IASTORE - Opcodes.IALOAD);
        if (arr instanceof MethodReader.Row r) {
            Accesses.checkElement(r.array(), load, line);
            out.add(new Stmt.Store(r.array(), r.row(), index, value, line, reader.nextAccess()));
        } else {
            ArrayRef a = OperandStack.asArray(arr, line, 1);
            Accesses.checkElement(a, load, line);
            out.add(new Stmt.Store(a, null, index, value, line, reader.nextAccess()));
        }
        return null;
    }

    @Override
    public Sym naryOperation(AbstractInsnNode insn, List<? extends Sym> values) {
        int op = insn.getOpcode();
        List<Object> args = new ArrayList<>();
        values.forEach(v -> args.add(v.value()));
        switch (op) {
            case Opcodes.INVOKESTATIC -> {
                MethodInsnNode m = (MethodInsnNode) insn;
                if (m.owner.equals("org/acc4j/Acc") && AtomicOp.named(m.name) != null) {
                    Object old = reader.acc.atomic(m, args, stack, out, line);
                    return old == null ? null : Sym.of(old);
                }
                return Sym.of(reader.acc.call(m, args, stack, out, line));
            }
            case Opcodes.INVOKEVIRTUAL, Opcodes.INVOKESPECIAL, Opcodes.INVOKEINTERFACE -> {
                MethodInsnNode m = (MethodInsnNode) insn;
                if (op == Opcodes.INVOKEVIRTUAL && m.owner.startsWith("[") && m.name.equals("clone")) {
                    return Sym.of(reader.acc.cloneArray(m, args.get(0), out, line));
                }
                if (op == Opcodes.INVOKESPECIAL && m.owner.equals("java/lang/Object") && m.name.equals("<init>")
                        && (args.get(0) instanceof MethodReader.Obj || args.get(0) == MethodReader.THIS && reader.callee)) {
                    // the constructor of Object, which a made object's constructor calls first, does nothing
                    return null;
                }
                throw new Unsupported(line, "a call to " + m.owner.replace('/', '.') + "." + m.name);
            }
            case Opcodes.INVOKEDYNAMIC -> throw new Unsupported(line, "a lambda, string concatenation or other invokedynamic");
            case Opcodes.MULTIANEWARRAY -> throw new Unsupported(line, "an allocation (new)");
            default -> throw new Unsupported(line, "the bytecode instruction " + op);
        }
    }

    @Override
    public void returnOperation(AbstractInsnNode insn, Sym value, Sym expected) {
        // the reader reads a block's return itself; a reference's was refused as the value was popped
    }

    @Override
    public Sym merge(Sym value1, Sym value2) {
        throw new UnsupportedOperationException("the reader runs one block at a time and never merges frames");
    }

    /** {@code v} as an expression: a reference is refused where a number is used. */
    private Expr expr(Sym v) {
        if (v.value() instanceof Expr e) {
            return e;
        }
        throw new Unsupported(line, "a reference used as a number");
    }
}
