package org.acc4j.compiler.frontend;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * What {@link MethodReader} reads of arrays, fields and calls: array references and rows held in locals, private
 * arrays allocated in a loop body, primitive fields, the {@code Acc} atomics and the {@code Math} functions the
 * device runs.
 */
final class Accesses {
    private final MethodReader reader;

    Accesses(MethodReader reader) {
        this.reader = reader;
    }

    String localName(int slot, AbstractInsnNode at) {
        MethodBody.Param p = paramAt(slot);
        if (p != null) {
            return p.name();
        }
        if (reader.method.localVariables != null && at != null) {
            int pos = reader.method.instructions.indexOf(at);
            for (LocalVariableNode lv : reader.method.localVariables) {
                if (lv.index == slot && pos >= reader.method.instructions.indexOf(lv.start) - 1
                        && pos < reader.method.instructions.indexOf(lv.end)) {
                    return lv.name;
                }
            }
        }
        return "v" + slot;
    }

    MethodBody.Param paramAt(int slot) {
        for (MethodBody.Param p : reader.params) {
            if (p.slot() == slot) {
                return p;
            }
        }
        return null;
    }

    Object reference(int slot, int line) {
        String made = reader.objectSlots.get(slot);
        if (made != null) {
            return new MethodReader.Obj(made, slot);
        }
        if (slot == 0 && !reader.isStatic() && reader.callee && reader.objectClasses.containsKey(reader.owner.name)) {
            // a method of a made object's class, read on its own to check it: its receiver is such an object
            reader.objectSlots.put(0, reader.owner.name);
            return new MethodReader.Obj(reader.owner.name, 0);
        }
        if ((slot == 0 && !reader.isStatic()) || reader.thisSlots.contains(slot)) {
            return MethodReader.THIS;
        }
        MethodReader.Holder held = reader.holderSlots.get(slot);
        if (held != null) {
            return held;
        }
        ArrayRef bound = reader.arraySlots.get(slot);
        if (bound != null) {
            return bound;
        }
        if (reader.elementSlots.containsKey(slot)) {
            return new ObjectElement(reader.elementArrays.get(slot), new Expr.Local(reader.elementSlots.get(slot)));
        }
        ObjectArray objects = reader.objectArraySlots.get(slot);
        if (objects != null) {
            return objects;
        }
        if (reader.rowSlots.containsKey(slot)) {
            return new MethodReader.Row(reader.rowArrays.get(slot), new Expr.Local(reader.rowSlots.get(slot)));
        }
        MethodBody.Param p = paramAt(slot);
        if (p != null) {
            Elem element = Elem.ofArray(p.descriptor());
            if (element == null && p.descriptor().startsWith("L")) {
                return new MethodReader.Holder(p);
            }
            String cls = objectArrayClass(p.descriptor());
            if (cls != null) {
                return objects(new ArrayRef.Parameter(p.index(), p.name()), cls, line);
            }
            if (element == null) {
                throw new Unsupported(line, "the parameter " + p.name() + " of type "
                        + org.objectweb.asm.Type.getType(p.descriptor()).getClassName());
            }
            return new ArrayRef(new ArrayRef.Parameter(p.index(), p.name()), element, Elem.arrayDims(p.descriptor()));
        }
        throw new Unsupported(line, "a local variable holding a reference that is not an array from a parameter or field");
    }

    /**
     * Stores an object made in the nest into local {@code slot}: the local's own field locals take {@code from}'s
     * fields, or zeros for an object {@code new} just made ({@code from} null).
     */
    void storeObject(int slot, String cls, MethodReader.Obj from, List<Object> stack, List<Stmt> out, int line,
            AbstractInsnNode at) {
        if (paramAt(slot) != null || reader.arraySlots.containsKey(slot) || reader.rowSlots.containsKey(slot)
                || reader.holderSlots.containsKey(slot) || reader.thisSlots.contains(slot)) {
            throw new Unsupported(line, "a variable that holds an object made in the nest and another reference");
        }
        String old = reader.objectSlots.putIfAbsent(slot, cls);
        if (old != null && !old.equals(cls)) {
            throw new Unsupported(line, "a variable that holds objects of two classes");
        }
        if (from != null && from.slot() == slot) {
            return;
        }
        for (Object v : stack) {
            if (v instanceof MethodReader.Obj o && o.slot() == slot) {
                throw new Unsupported(line, "an object variable assigned while its old object is still in use");
            }
        }
        for (Inliner.ObjectField f : reader.objectClasses.get(cls)) {
            Var to = reader.objectField(slot, cls, f.name(), at, line);
            Expr value = from != null ? new Expr.Local(reader.objectField(from.slot(), cls, f.name(), at, line))
                    : new Expr.Const(to.type(), 0);
            reader.ops.assign(to, value, stack, out, line);
        }
    }

    void bindArray(int slot, Object value, List<Stmt> out, int line) {
        if (reader.objectSlots.containsKey(slot)) {
            throw new Unsupported(line, "a variable that holds an object made in the nest and an array");
        }
        if (value instanceof MethodReader.Row r) {
            if (paramAt(slot) != null) {
                throw new Unsupported(line, "an assignment to the array parameter " + paramAt(slot).name());
            }
            ArrayRef old = reader.rowArrays.putIfAbsent(slot, r.array());
            if (old != null && !old.equals(r.array())) {
                throw new Unsupported(line, "an array variable that refers to rows of different arrays");
            }
            Var v = reader.rowSlots.computeIfAbsent(slot, k -> new Var(reader.method.maxLocals + 4096 + k, Type.I32, localName(k, null) + "_row"));
            out.add(new Stmt.Assign(v, r.row(), line));
            return;
        }
        if (!(value instanceof ArrayRef a)) {
            throw new Unsupported(line, "a local variable holding a reference that is not an array from a parameter or field");
        }
        if (a.source() instanceof ArrayRef.Private) {
            // a new array each time the allocation runs: the variable refers to the latest
            if (paramAt(slot) != null) {
                throw new Unsupported(line, "an assignment to the array parameter " + paramAt(slot).name());
            }
            ArrayRef old = reader.arraySlots.get(slot);
            if (old != null && !(old.source() instanceof ArrayRef.Private)) {
                throw new Unsupported(line, "an array variable that refers to different arrays");
            }
            reader.arraySlots.put(slot, a);
            return;
        }
        if (paramAt(slot) != null) {
            throw new Unsupported(line, "an assignment to the array parameter " + paramAt(slot).name());
        }
        ArrayRef old = reader.arraySlots.putIfAbsent(slot, a);
        if (old != null && !old.equals(a)) {
            throw new Unsupported(line, "an array variable that refers to different arrays");
        }
    }

    /**
     * {@code new T[n]} in the method: a private array when {@code n} is a constant up to {@link MethodReader#MAX_PRIVATE} and
     * {@code T} is {@code int}, {@code long}, {@code float} or {@code double}; its elements are set to zero where it
     * is allocated, as Java's are.
     */
    ArrayRef newArray(IntInsnNode insn, Object length, List<Stmt> out, int line) {
        if (!(length instanceof Expr size)) {
            throw new Unsupported(line, "a reference used as a number");
        }
        Elem elem = switch (insn.operand) {
            case Opcodes.T_INT -> Elem.INT;
            case Opcodes.T_LONG -> Elem.LONG;
            case Opcodes.T_FLOAT -> Elem.FLOAT;
            case Opcodes.T_DOUBLE -> Elem.DOUBLE;
            default -> null;
        };
        String name = allocatedName(insn);
        String what = "an allocation (new) of " + name;
        if (elem == null) {
            throw new Unsupported(line, what + ": a private array of a type other than int, long, float or double");
        }
        if (!(size instanceof Expr.Const k) || (int) k.bits() < 0 || (int) k.bits() > MethodReader.MAX_PRIVATE) {
            throw new Unsupported(line, what + " = new " + elem.javaName() + "[" + size + "]: its size is not a"
                    + " constant from 0 to " + MethodReader.MAX_PRIVATE + " (a private array in a loop body needs a size known at"
                    + " compile time)");
        }
        ArrayRef a = privateArray(name, elem, (int) k.bits());
        Expr zero = elem.type() == Type.I64 ? Expr.Const.i64(0) : elem.type() == Type.F32 ? Expr.Const.f32(0)
                : elem.type() == Type.F64 ? Expr.Const.f64(0) : Expr.Const.i32(0);
        for (int i = 0; i < ((ArrayRef.Private) a.source()).length(); i++) {
            out.add(new Stmt.Store(a, null, Expr.Const.i32(i), zero, line, reader.nextAccess()));
        }
        return a;
    }

    /** {@code c.clone()}: a private copy of a private array (whose length is known); any other array is refused. */
    ArrayRef cloneArray(MethodInsnNode m, Object receiver, List<Stmt> out, int line) {
        String name = allocatedName(m);
        if (!(receiver instanceof ArrayRef c) || !(c.source() instanceof ArrayRef.Private p)) {
            throw new Unsupported(line, "an allocation (new) of " + name + " = " + (receiver instanceof ArrayRef c
                    ? c.name() : "an array") + ".clone(): its length is not known at compile time (only a clone of"
                    + " an array allocated in the loop body with a constant size is private)");
        }
        ArrayRef a = privateArray(name, c.elem(), p.length());
        for (int i = 0; i < ((ArrayRef.Private) a.source()).length(); i++) {
            out.add(new Stmt.Store(a, null, Expr.Const.i32(i), new Expr.Load(c, null, Expr.Const.i32(i),
                    reader.nextAccess()), line, reader.nextAccess()));
        }
        return a;
    }

    ArrayRef privateArray(String name, Elem elem, int length) {
        int id = reader.privates++;
        return new ArrayRef(new ArrayRef.Private(name, id, length, reader.method.maxLocals + 16384 + id * (MethodReader.MAX_PRIVATE + 2)),
                elem, 1);
    }

    /** The name of the local an allocation is stored into (the next instruction's), else "an array". */
    String allocatedName(AbstractInsnNode insn) {
        AbstractInsnNode next = insn.getNext();
        while (next != null && (next.getOpcode() < 0 || next.getOpcode() == Opcodes.CHECKCAST)) {
            next = next.getNext();
        }
        if (next != null && next.getOpcode() == Opcodes.ASTORE) {
            int slot = ((VarInsnNode) next).var;
            String n = localName(slot, next.getNext());
            return n == null ? "the array in local " + slot : n;
        }
        return "an array";
    }

    /**
     * The class (an internal name) of the elements of an array of objects of descriptor {@code desc} whose fields a nest
     * may read ({@code [Lorg/x/Particle;}), or null: one dimension, a class outside the JDK.
     */
    static String objectArrayClass(String desc) {
        if (!desc.startsWith("[L") || desc.startsWith("[Ljava/") || desc.startsWith("[Ljavax/")
                || desc.startsWith("[Ljdk/") || desc.startsWith("[Lsun/")) {
            return null;
        }
        return desc.substring(2, desc.length() - 1);
    }

    /** The array of objects {@code source}, refused in a method that inlines an overridable method. */
    private ObjectArray objects(ArrayRef.Source source, String cls, int line) {
        if (reader.virtualCalls) {
            // the receivers' classes are checked at each call for this and the parameters only, not for elements
            throw new Unsupported(line, "the array of objects " + source.name() + " (" + cls.replace('/', '.')
                    + "[]) in a method that inlines an overridable method: make that method final, or read the fields"
                    + " into arrays before the nest");
        }
        return new ObjectArray(source, cls);
    }

    /**
     * The primitive array of field {@code f} of the elements of {@code objects} ({@link ArrayRef.Gathered}).
     *
     * @throws Unsupported for a static field or a field that is not of a primitive type
     */
    ArrayRef gathered(ObjectArray objects, FieldInsnNode f, int line) {
        Elem elem = Elem.ofField(f.desc);
        if (elem == null) {
            throw new Unsupported(line, "the field " + f.name + " (" + org.objectweb.asm.Type.getType(f.desc).getClassName()
                    + ") of an element of the array of objects " + objects.source().name()
                    + ": only primitive fields of an array's objects are read and written in a nest");
        }
        return new ArrayRef(new ArrayRef.Gathered(objects.source(), f.owner, f.name, f.desc), elem, 1);
    }

    /** {@code objects.length}: the length of its array, read through a stand-in that carries no elements. */
    static Expr objectsLength(ObjectArray objects) {
        return new Expr.Length(new ArrayRef(ArrayRef.Gathered.length(objects.source()), Elem.BOOLEAN, 1));
    }

    /** Stores the element {@code e} of an array of objects into local {@code slot} (its index into a variable). */
    void bindElement(int slot, ObjectElement e, List<Object> stack, List<Stmt> out, int line) {
        if (paramAt(slot) != null || reader.arraySlots.containsKey(slot) || reader.rowSlots.containsKey(slot)
                || reader.holderSlots.containsKey(slot) || reader.thisSlots.contains(slot)
                || reader.objectSlots.containsKey(slot) || reader.objectArraySlots.containsKey(slot)) {
            throw new Unsupported(line, "a variable that holds an element of an array of objects and another reference");
        }
        ObjectArray old = reader.elementArrays.putIfAbsent(slot, e.array());
        if (old != null && !old.equals(e.array())) {
            throw new Unsupported(line, "a variable that refers to elements of different arrays of objects");
        }
        Var v = reader.elementSlots.get(slot);
        if (v != null) {
            reader.ops.spill(stack, out, line, v, false);
        } else {
            v = new Var(reader.method.maxLocals + 12288 + slot, Type.I32, localName(slot, null) + "_element");
            reader.elementSlots.put(slot, v);
        }
        out.add(new Stmt.Assign(v, e.index(), line));
    }

    /** Stores the array of objects {@code o} into local {@code slot}. */
    void bindObjects(int slot, ObjectArray o, int line) {
        if (paramAt(slot) != null || reader.arraySlots.containsKey(slot) || reader.rowSlots.containsKey(slot)
                || reader.holderSlots.containsKey(slot) || reader.thisSlots.contains(slot)
                || reader.objectSlots.containsKey(slot) || reader.elementSlots.containsKey(slot)) {
            throw new Unsupported(line, "a variable that holds an array of objects and another reference");
        }
        ObjectArray old = reader.objectArraySlots.putIfAbsent(slot, o);
        if (old != null && !old.equals(o)) {
            throw new Unsupported(line, "a variable that refers to different arrays of objects");
        }
    }

    /**
     * The value of field {@code f}: an array or a primitive's {@link Expr.FieldValue}; {@code target} null if static,
     * else {@code this} or an object parameter ({@link MethodReader.Holder}).
     */
    Object field(FieldInsnNode f, Object target, int line) {
        boolean isStatic = f.getOpcode() == Opcodes.GETSTATIC;
        if (target instanceof MethodReader.Obj o) {
            return new Expr.Local(reader.objectField(o.slot(), o.cls(), f.name, null, line));
        }
        if (target instanceof MethodReader.Fresh) {
            throw new Unsupported(line, "the field " + f.name + " of an object before its constructor runs");
        }
        if (target instanceof ObjectElement e) {
            return new Expr.Load(gathered(e.array(), f, line), null, e.index(), reader.nextAccess());
        }
        MethodReader.Holder held = target instanceof MethodReader.Holder h ? h : null;
        if (!isStatic && target != MethodReader.THIS && held == null) {
            throw new Unsupported(line, "the field " + f.name + " of an object other than this or a parameter");
        }
        if (held != null && held.param() != null) {
            reader.objects.add(held.param().index());
        }
        if (f.desc.startsWith("L") && Type.ofDescriptor(f.desc) == null && !f.desc.startsWith("Ljava/")) {
            // a field holding an object: its own fields are read through it at the call
            if (reader.virtualCalls) {
                throw new Unsupported(line, "the field " + f.name + " holding an object (" + org.objectweb.asm.Type.getType(f.desc)
                        .getClassName() + ") in a method that inlines an overridable method: read its fields into locals"
                        + " before the nest, or make the method final");
            }
            ArrayRef.Hop hop = new ArrayRef.Hop(f.owner, f.name, isStatic);
            MethodReader.Holder start = held != null ? held : new MethodReader.Holder(null, java.util.List.of(),
                    isStatic ? f.owner.substring(f.owner.lastIndexOf('/') + 1) : null);
            MethodReader.Holder next = start.then(hop);
            if (next.path().size() > MethodReader.MAX_HOPS) {
                throw new Unsupported(line, "the field " + next + ": more than " + MethodReader.MAX_HOPS
                        + " fields holding objects on the way");
            }
            return next;
        }
        ArrayRef.Field source;
        if (held != null && held.chained()) {
            source = new ArrayRef.Field(f.owner, held.name() + "." + f.name, f.desc, false, held.holder(), held.path());
        } else {
            source = held == null ? new ArrayRef.Field(f.owner, f.name, f.desc, isStatic)
                    : new ArrayRef.Field(f.owner, held.param().name() + "." + f.name, f.desc, false, held.param().index());
        }
        Elem element = Elem.ofArray(f.desc);
        if (element != null) {
            return new ArrayRef(source, element, Elem.arrayDims(f.desc));
        }
        String cls = objectArrayClass(f.desc);
        if (cls != null) {
            return objects(source, cls, line);
        }
        Type scalar = Type.ofDescriptor(f.desc);
        if (scalar == null) {
            throw new Unsupported(line, "the field " + f.name + " of type " + org.objectweb.asm.Type.getType(f.desc).getClassName());
        }
        return new Expr.FieldValue(source, scalar);
    }

    /** {@code load} is the access's xALOAD opcode (a store's xASTORE mapped onto it); baload serves byte and boolean. */
    static void checkElement(ArrayRef a, int load, int line) {
        boolean matches = switch (load) {
            case Opcodes.IALOAD -> a.elem() == Elem.INT;
            case Opcodes.LALOAD -> a.elem() == Elem.LONG;
            case Opcodes.FALOAD -> a.elem() == Elem.FLOAT;
            case Opcodes.DALOAD -> a.elem() == Elem.DOUBLE;
            case Opcodes.BALOAD -> a.elem() == Elem.BYTE || a.elem() == Elem.BOOLEAN;
            case Opcodes.CALOAD -> a.elem() == Elem.CHAR;
            default -> a.elem() == Elem.SHORT;
        };
        if (!matches) {
            throw new Unsupported(line, "an access to " + a.name() + " (" + a.javaType()
                    + ") with the wrong element type");
        }
    }

    /** Whether {@code m} calls {@code org.acc4j.Acc.onDevice()}, which a kernel answers with the constant true. */
    static boolean isOnDevice(MethodInsnNode m) {
        return m.getOpcode() == Opcodes.INVOKESTATIC && m.owner.equals("org/acc4j/Acc") && m.name.equals("onDevice")
                && m.desc.equals("()Z");
    }

    /**
     * A call of {@code Acc.atomic...} with arguments {@code args}: an {@link Stmt.Atomic}, whose old value is a new
     * local (returned), or a constant placeholder when the next instruction discards it (the update form); null for
     * a routine that returns nothing. {@code stack} is the operand stack below the arguments.
     */
    Object atomic(MethodInsnNode m, List<Object> arguments, List<Object> stack, List<Stmt> out, int line) {
        List<Object> args = new ArrayList<>(arguments);
        AtomicOp op = AtomicOp.named(m.name);
        List<Expr> operands = new ArrayList<>();
        for (int k = 0; k < op.operands(); k++) {
            operands.add(0, OperandStack.popExpr(args, line));
        }
        Expr index = OperandStack.popExpr(args, line);
        Object arr = OperandStack.pop(args, line);
        ArrayRef a = arr instanceof MethodReader.Row r ? r.array() : OperandStack.asArray(arr, line, 1);
        Expr row = arr instanceof MethodReader.Row r ? r.row() : null;
        if (!op.accepts(a.element()) || index.type() != Type.I32) {
            throw new Unsupported(line, "Acc." + m.name + m.desc);
        }
        reader.ops.spill(stack, out, line, null, true);
        org.objectweb.asm.Type ret = org.objectweb.asm.Type.getReturnType(m.desc);
        if (ret.getSort() == org.objectweb.asm.Type.VOID) {
            out.add(new Stmt.Atomic(op, a, row, index, operands, null, line));
            return null;
        }
        Type t = op == AtomicOp.CAS ? Type.I32 : a.element();
        AbstractInsnNode next = m.getNext();
        while (next != null && next.getOpcode() < 0) {
            next = next.getNext();
        }
        if (next != null && (next.getOpcode() == Opcodes.POP || next.getOpcode() == Opcodes.POP2)) {
            out.add(new Stmt.Atomic(op, a, row, index, operands, null, line));
            return new Expr.Const(t, 0);
        }
        Var result = new Var(reader.method.maxLocals + reader.temps, t, "old" + reader.temps);
        reader.temps++;
        out.add(new Stmt.Atomic(op, a, row, index, operands, result, line));
        return new Expr.Local(result);
    }

    /**
     * A call of a {@code java.lang.Math} method the kernel compiler knows, one of the platform's exact functions
     * ({@link PlatformCalls}), or {@code Acc.onDevice()} (true: the kernel runs on the device); anything else is
     * unsupported. {@code stack} is the operand stack below the arguments.
     */
    Expr call(MethodInsnNode m, List<Object> arguments, List<Object> stack, List<Stmt> out, int line) {
        List<Object> args = new ArrayList<>(arguments);
        if (isOnDevice(m)) {
            return Expr.Const.i32(1);
        }
        org.objectweb.asm.Type[] params = org.objectweb.asm.Type.getArgumentTypes(m.desc);
        if (params.length == args.size() && args.stream().allMatch(a -> a instanceof Expr)) {
            List<Expr> operands = args.stream().map(a -> (Expr) a).toList();
            boolean[] spilled = {false};
            Expr lowered = PlatformCalls.lower(m, operands, e -> {
                if (e instanceof Expr.Const || e instanceof Expr.Local) {
                    return e;
                }
                if (!spilled[0]) {
                    // values below the arguments that read memory are computed first, in Java's order
                    reader.ops.spill(stack, out, line, null, true);
                    spilled[0] = true;
                }
                return reader.ops.temp(e, out, line);
            });
            if (lowered != null) {
                return lowered;
            }
        }
        boolean math = m.owner.equals("java/lang/Math");
        boolean strict = m.owner.equals("java/lang/StrictMath");
        boolean box = m.owner.equals("java/lang/Double") || m.owner.equals("java/lang/Float");
        if (box && (m.desc.equals("(D)Z") || m.desc.equals("(F)Z"))
                && (m.name.equals("isNaN") || m.name.equals("isInfinite") || m.name.equals("isFinite"))) {
            return classify(m.name, OperandStack.popExpr(args, line));
        }
        if ((math || strict) && (m.name.equals("floorMod") || m.name.equals("floorDiv"))
                && (m.desc.equals("(II)I") || m.desc.equals("(JJ)J"))) {
            Expr y = OperandStack.popExpr(args, line);
            Expr x = OperandStack.popExpr(args, line);
            return floor(m.name.equals("floorMod"), x, y);
        }
        org.acc4j.compiler.ir.MathFn fn = org.acc4j.compiler.ir.MathFn.named(m.name);
        org.objectweb.asm.Type[] argTypes = org.objectweb.asm.Type.getArgumentTypes(m.desc);
        Type result = Type.ofDescriptor(org.objectweb.asm.Type.getReturnType(m.desc).getDescriptor());
        if ((!math && !strict) || fn == null || fn.arity() != argTypes.length || result == null) {
            throw new Unsupported(line, "a call to " + m.owner.replace('/', '.') + "." + m.name);
        }
        if (strict && !fn.exact()) {
            throw new Unsupported(line, "StrictMath." + m.name + " (its fdlibm result is not reproduced on the GPU; use Math."
                    + m.name + ", which allows 1 ulp)");
        }
        for (org.objectweb.asm.Type t : argTypes) {
            if (Type.ofDescriptor(t.getDescriptor()) != result) {
                throw new Unsupported(line, "a call to Math." + m.name + m.desc);
            }
        }
        List<Expr> operands = new ArrayList<>();
        for (int k = 0; k < argTypes.length; k++) {
            operands.add(0, OperandStack.popExpr(args, line));
        }
        return new Expr.Call(fn, result, operands);
    }

    /**
     * {@code Double.isNaN(x)}, {@code isInfinite(x)} or {@code isFinite(x)} (and {@code Float}'s) as Java defines them:
     * {@code x != x}; {@code |x| == ∞}; {@code |x| <= MAX_VALUE}, false for NaN. The result is an {@code int}, 1 or 0,
     * as a boolean is on the JVM's stack.
     */
    private static Expr classify(String name, Expr x) {
        boolean dbl = x.type() == Type.F64;
        Expr abs = new Expr.Call(org.acc4j.compiler.ir.MathFn.ABS, x.type(), List.of(x));
        Expr.Compare test = switch (name) {
            case "isNaN" -> new Expr.Compare(org.acc4j.compiler.ir.Cond.NE, x, x, true);
            case "isInfinite" -> new Expr.Compare(org.acc4j.compiler.ir.Cond.EQ, abs,
                    dbl ? Expr.Const.f64(Double.POSITIVE_INFINITY) : Expr.Const.f32(Float.POSITIVE_INFINITY), false);
            default -> new Expr.Compare(org.acc4j.compiler.ir.Cond.LE, abs,
                    dbl ? Expr.Const.f64(Double.MAX_VALUE) : Expr.Const.f32(Float.MAX_VALUE), false);
        };
        return new Expr.Select(test, Expr.Const.i32(1), Expr.Const.i32(0));
    }

    /**
     * {@code Math.floorMod(x, y)} or {@code Math.floorDiv(x, y)} of {@code int} or {@code long} operands, as Java
     * computes them: the remainder {@code r = x % y} plus {@code y} when the signs differ and {@code r != 0}; the
     * quotient {@code q = x / y} less one when the signs differ and {@code q * y != x}. A zero {@code y} throws
     * {@code ArithmeticException} from the division, as Java's does.
     */
    private static Expr floor(boolean mod, Expr x, Expr y) {
        Expr zero = x.type() == Type.I64 ? Expr.Const.i64(0) : Expr.Const.i32(0);
        Expr one = x.type() == Type.I64 ? Expr.Const.i64(1) : Expr.Const.i32(1);
        Expr signsDiffer = new Expr.Compare(org.acc4j.compiler.ir.Cond.LT,
                new Expr.Binary(org.acc4j.compiler.ir.BinOp.XOR, x, y), zero, false);
        if (mod) {
            Expr r = new Expr.Binary(org.acc4j.compiler.ir.BinOp.REM, x, y);
            Expr adjusted = new Expr.Select(new Expr.Compare(org.acc4j.compiler.ir.Cond.NE, r, zero, false),
                    new Expr.Binary(org.acc4j.compiler.ir.BinOp.ADD, r, y), r);
            return new Expr.Select(signsDiffer, adjusted, r);
        }
        Expr q = new Expr.Binary(org.acc4j.compiler.ir.BinOp.DIV, x, y);
        Expr inexact = new Expr.Compare(org.acc4j.compiler.ir.Cond.NE,
                new Expr.Binary(org.acc4j.compiler.ir.BinOp.MUL, q, y), x, false);
        Expr adjusted = new Expr.Select(inexact, new Expr.Binary(org.acc4j.compiler.ir.BinOp.SUB, q, one), q);
        return new Expr.Select(signsDiffer, adjusted, q);
    }
}
