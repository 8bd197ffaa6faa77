package org.acc4j.samples.numerics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.acc4j.Kernels;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * {@code numerics-nests.txt} against the compiled samples: every line names a {@code @Kernels} method of the
 * package and a kind, and the lines listed for each method are exactly the lines of its loops as the bytecode
 * gives them (the line of the instruction each backward jump goes to: the loop's test), so that the file cannot
 * drift from the sources.
 */
class NestsListTest {
    static final Set<String> KINDS = Set.of("parallel", "sequential", "host");

    record Entry(String method, int line, String kind, String comment) {
    }

    static List<Entry> entries() throws IOException {
        List<Entry> out = new ArrayList<>();
        try (InputStream in = NestsListTest.class.getResourceAsStream("/numerics-nests.txt")) {
            assertNotNull(in, "numerics-nests.txt is not on the class path");
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String l; (l = r.readLine()) != null; ) {
                int hash = l.indexOf('#');
                String body = (hash < 0 ? l : l.substring(0, hash)).trim();
                if (body.isEmpty()) {
                    continue;
                }
                String[] f = body.split("\\s+");
                assertEquals(3, f.length, "not `Class.method line kind`: " + l);
                out.add(new Entry(f[0], Integer.parseInt(f[1]), f[2], hash < 0 ? "" : l.substring(hash + 1).trim()));
            }
        }
        return out;
    }

    /** For each {@code @Kernels} method of the listed classes, the lines of its loop tests. */
    static Map<String, Set<Integer>> loopLines(Set<String> classes) throws IOException {
        Map<String, Set<Integer>> out = new TreeMap<>();
        for (String simple : classes) {
            String name = NestsListTest.class.getPackageName() + "." + simple;
            ClassNode cn = new ClassNode();
            try (InputStream in = NestsListTest.class.getResourceAsStream("/" + name.replace('.', '/') + ".class")) {
                assertNotNull(in, "no class file for " + name);
                new ClassReader(in).accept(cn, 0);
            }
            String kernels = Type.getDescriptor(Kernels.class);
            for (MethodNode m : cn.methods) {
                boolean annotated = m.visibleAnnotations != null
                        && m.visibleAnnotations.stream().anyMatch(a -> a.desc.equals(kernels));
                if (!annotated) {
                    continue;
                }
                Set<Integer> lines = new TreeSet<>();
                int index = 0;
                Map<LabelNode, Integer> at = new java.util.HashMap<>();
                for (AbstractInsnNode i : m.instructions) {
                    at.put(i instanceof LabelNode l ? l : null, index++);
                }
                index = 0;
                for (AbstractInsnNode i : m.instructions) {
                    if (i instanceof JumpInsnNode j && at.get(j.label) < index) {
                        lines.add(lineOf(j.label));
                    }
                    index++;
                }
                out.put(simple + "." + m.name, lines);
            }
        }
        return out;
    }

    /** The source line of the first instruction at or after a label. */
    static int lineOf(LabelNode label) {
        int line = -1;
        for (AbstractInsnNode i = label; i != null; i = i.getPrevious()) {
            if (i instanceof LineNumberNode ln) {
                line = ln.line;
                break;
            }
        }
        for (AbstractInsnNode i = label; i != null && i.getOpcode() < 0; i = i.getNext()) {
            if (i instanceof LineNumberNode ln) {
                return ln.line;
            }
        }
        return line;
    }

    @Test
    void listsEveryLoopOfEveryKernelsMethodAndNothingElse() throws IOException {
        List<Entry> entries = entries();
        Map<String, Set<Integer>> listed = new TreeMap<>();
        for (Entry e : entries) {
            assertTrue(KINDS.contains(e.kind()), "unknown kind " + e.kind() + " in " + e);
            assertTrue(listed.computeIfAbsent(e.method(), k -> new TreeSet<>()).add(e.line()), "listed twice: " + e);
        }
        Set<String> classes = new TreeSet<>();
        for (NumericsRunTest.Sample s : NumericsRunTest.SAMPLES) {
            classes.add(s.name());
        }
        for (String m : listed.keySet()) {
            classes.add(m.substring(0, m.indexOf('.')));
        }
        Map<String, Set<Integer>> actual = loopLines(classes);
        assertEquals(actual.keySet(), listed.keySet(), "the @Kernels methods of the numerics samples");
        for (String m : actual.keySet()) {
            assertEquals(actual.get(m), listed.get(m), "the loop lines of " + m);
        }
    }

    @Test
    void everyNestHasAParallelLoopOrIsHostOnly() throws IOException {
        // each sample has at least one parallel loop, and each method a loop that is not host
        Map<String, Set<String>> kinds = new TreeMap<>();
        for (Entry e : entries()) {
            kinds.computeIfAbsent(e.method(), k -> new TreeSet<>()).add(e.kind());
        }
        for (Map.Entry<String, Set<String>> k : kinds.entrySet()) {
            assertTrue(k.getValue().contains("parallel"), k.getKey() + " has no parallel loop");
        }
    }

    @Test
    void theSamplesUseNoDirectiveButKernels() throws IOException {
        // the samples are plain numerics code with @Kernels on the methods that hold the loops: no @Loop, no @Data,
        // no Acc routine (only Report asks Acc for the device's name)
        for (NumericsRunTest.Sample s : NumericsRunTest.SAMPLES) {
            List<String> classes = new ArrayList<>(List.of(s.name()));
            if (s.name().equals("CG")) {
                classes.add("CGBase");
            }
            for (String c : classes) {
                String resource = "/" + getClass().getPackageName().replace('.', '/') + "/" + c + ".class";
                String text;
                try (InputStream in = getClass().getResourceAsStream(resource)) {
                    assertNotNull(in, resource);
                    text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                }
                for (String banned : List.of("org/acc4j/Loop", "org/acc4j/Data", "org/acc4j/Acc")) {
                    assertTrue(!text.contains(banned), c + " refers to " + banned);
                }
            }
        }
    }
}
