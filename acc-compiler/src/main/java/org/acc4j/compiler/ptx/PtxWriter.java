package org.acc4j.compiler.ptx;

import java.util.EnumMap;
import java.util.Map;
import org.acc4j.compiler.ir.Type;

/**
 * Writes the body of one PTX kernel: allocates typed virtual registers and appends instructions, one method
 * per instruction family. Register declarations are emitted by {@link #body()} once the count is known.
 * One writer per kernel; nothing is shared between compilations.
 */
final class PtxWriter {
    private final StringBuilder code = new StringBuilder(4096);
    private final Map<Type, Integer> counts = new EnumMap<>(Type.class);
    private int labels;

    Reg reg(Type t) {
        int n = counts.merge(t, 1, Integer::sum);
        return new Reg(t, n);
    }

    String newLabel(String hint) {
        return "$L_" + hint + "_" + (++labels);
    }

    void label(String name) {
        code.append(name).append(":\n");
    }

    void comment(String text) {
        code.append("\t// ").append(text.replace('\n', ' ')).append('\n');
    }

    private void line(String text) {
        code.append('\t').append(text).append(";\n");
    }

    /** {@code op d, a, b} with the full opcode given (for example "add.rn.f64"). */
    void op(String opcode, Reg d, Object a, Object b) {
        line(opcode + " " + d + ", " + a + ", " + b);
    }

    /** {@code op d, a}. */
    void op(String opcode, Reg d, Object a) {
        line(opcode + " " + d + ", " + a);
    }

    /** {@code op d, a, b, c} (mad, selp). */
    void op(String opcode, Reg d, Object a, Object b, Object c) {
        line(opcode + " " + d + ", " + a + ", " + b + ", " + c);
    }

    void mov(Reg d, Object src) {
        line("mov." + d.type().bits() + " " + d + ", " + src);
    }

    void setp(String cmp, String type, Reg p, Object a, Object b) {
        line("setp." + cmp + "." + type + " " + p + ", " + a + ", " + b);
    }

    void ldParam(String type, Reg d, String param) {
        line("ld.param." + type + " " + d + ", [" + param + "]");
    }

    void ldGlobal(boolean readOnly, String type, Reg d, Reg addr) {
        line("ld.global." + (readOnly ? "nc." : "") + type + " " + d + ", [" + addr + "]");
    }

    void ldGlobalOffset(boolean readOnly, String type, Reg d, Reg addr, long offset) {
        line("ld.global." + (readOnly ? "nc." : "") + type + " " + d + ", [" + addr + (offset != 0 ? "+" + offset : "")
                + "]");
    }

    /** An instruction written out in full. */
    void raw(String instruction) {
        line(instruction);
    }

    /** A brace-delimited block written out in full (its own {@code .param} declarations, a call). */
    void block(String text) {
        code.append('\t').append(text).append('\n');
    }

    void stGlobal(String type, Reg addr, long offset, Object value) {
        line("st.global." + type + " [" + addr + (offset != 0 ? "+" + offset : "") + "], " + value);
    }

    void atomCas(Reg old, Reg addr, Object compare, Object value) {
        line("atom.global.cas.b32 " + old + ", [" + addr + "], " + compare + ", " + value);
    }

    void bra(String label) {
        line("bra " + label);
    }

    void braIf(Reg pred, boolean when, String label) {
        line("@" + (when ? "" : "!") + pred + " bra " + label);
    }

    void predicated(Reg pred, boolean when, String instruction) {
        line("@" + (when ? "" : "!") + pred + " " + instruction);
    }

    void ret() {
        line("ret");
    }

    /** The register declarations followed by the instructions. */
    String body() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<Type, Integer> e : counts.entrySet()) {
            String decl = switch (e.getKey()) {
                case I32 -> ".b32";
                case I64 -> ".b64";
                case F32 -> ".f32";
                case F64 -> ".f64";
                case PRED -> ".pred";
            };
            b.append("\t.reg ").append(decl).append(' ').append(Reg.prefix(e.getKey())).append('<')
                    .append(e.getValue() + 1).append(">;\n");
        }
        return b.append('\n').append(code).toString();
    }
}
