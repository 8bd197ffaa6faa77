package org.acc4j.compiler.frontend;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.ir.LoopSpec;
import org.objectweb.asm.TypeReference;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.LocalVariableAnnotationNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * Reads {@code @Loop} from a method's RuntimeVisibleTypeAnnotations: each is a LOCAL_VARIABLE type annotation
 * with the variable's slot and the code ranges where it is live. A loop takes the annotation of its index
 * when its header lies in one of those ranges.
 */
final class LoopAnnotations {
    static final String LOOP_DESC = "Lorg/acc4j/Loop;";

    private record Range(int slot, int start, int end, LoopSpec spec) {
    }

    private final List<Range> ranges = new ArrayList<>();

    LoopAnnotations(MethodNode mn) {
        List<LocalVariableAnnotationNode> all = new ArrayList<>();
        if (mn.visibleLocalVariableAnnotations != null) {
            all.addAll(mn.visibleLocalVariableAnnotations);
        }
        if (mn.invisibleLocalVariableAnnotations != null) {
            all.addAll(mn.invisibleLocalVariableAnnotations);
        }
        InsnList insns = mn.instructions;
        for (LocalVariableAnnotationNode a : all) {
            if (!LOOP_DESC.equals(a.desc)
                    || new TypeReference(a.typeRef).getSort() != TypeReference.LOCAL_VARIABLE) {
                continue;
            }
            LoopSpec spec = parse(a.values);
            for (int k = 0; k < a.index.size(); k++) {
                ranges.add(new Range(a.index.get(k), insns.indexOf(a.start.get(k)), insns.indexOf(a.end.get(k)), spec));
            }
        }
    }

    /** The spec of the variable in {@code slot} live at instruction {@code insn}, or {@link LoopSpec#NONE}. */
    LoopSpec at(int slot, int insn) {
        for (Range r : ranges) {
            if (r.slot == slot && insn >= r.start && insn < r.end) {
                return r.spec;
            }
        }
        return LoopSpec.NONE;
    }

    boolean isEmpty() {
        return ranges.isEmpty();
    }

    static LoopSpec parse(List<Object> values) {
        int gang = LoopSpec.OFF;
        int worker = LoopSpec.OFF;
        int vector = LoopSpec.OFF;
        boolean seq = false;
        boolean independent = false;
        int collapse = 1;
        String reduction = "";
        LoopSpec.Increments increments = LoopSpec.Increments.NONE;
        if (values != null) {
            for (int i = 0; i + 1 < values.size(); i += 2) {
                String name = (String) values.get(i);
                Object v = values.get(i + 1);
                switch (name) {
                    case "gang" -> gang = (Integer) v;
                    case "worker" -> worker = (Integer) v;
                    case "vector" -> vector = (Integer) v;
                    case "seq" -> seq = (Boolean) v;
                    case "independent" -> independent = (Boolean) v;
                    case "collapse" -> collapse = (Integer) v;
                    case "reduction" -> reduction = (String) v;
                    case "increments" -> increments = LoopSpec.Increments.valueOf(((String[]) v)[1]);
                    default -> { }
                }
            }
        }
        return new LoopSpec(gang, worker, vector, seq, independent, collapse, reduction, true, increments);
    }
}
