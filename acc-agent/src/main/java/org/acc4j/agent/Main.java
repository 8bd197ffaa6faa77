package org.acc4j.agent;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.acc4j.compiler.site.ClassRewriter;
import org.acc4j.compiler.site.LoopRegions;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.PlanReport;
import org.acc4j.compiler.site.Planner;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * {@code java -jar acc.jar explain [--json] --class-path CP CLASS_OR_JAR...}: compiles every {@code @Kernels} method
 * it finds, without running the program and without a GPU, and prints what the runtime would do: each loop nest with
 * its source line, its mapping onto the grid or why it stays on the host, its reductions, and what the host code
 * between the nests makes the runtime move.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static final String USAGE = "usage: java -jar acc.jar explain [--json] [--class-path CP] CLASS_OR_JAR_OR_DIR...";

    /** Runs a command; its exit status: 0 on success, 2 for a usage error, 1 when a named input cannot be read. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && (args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h"))) {
            out.println(USAGE);
            out.println("       java -jar acc.jar help");
            out.println("run a program with acc4j: java -javaagent:acc.jar -cp CP MAIN_CLASS [ARGS...]");
            return 0;
        }
        if (args.length == 0 || !args[0].equals("explain")) {
            if (args.length > 0) {
                err.println("acc4j: unknown command: " + args[0]);
            }
            err.println(USAGE);
            return 2;
        }
        boolean json = false;
        String cp = "";
        List<String> inputs = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--json" -> json = true;
                case "--class-path", "-cp", "--classpath" -> {
                    if (i + 1 >= args.length) {
                        err.println(USAGE);
                        return 2;
                    }
                    cp = args[++i];
                }
                case "-h", "--help" -> {
                    out.println(USAGE);
                    return 0;
                }
                default -> inputs.add(args[i]);
            }
        }
        if (inputs.isEmpty()) {
            err.println(USAGE);
            return 2;
        }
        List<URL> urls = new ArrayList<>();
        for (String e : cp.split(File.pathSeparator)) {
            if (!e.isEmpty()) {
                try {
                    urls.add(Path.of(e).toUri().toURL());
                } catch (IOException x) {
                    err.println("acc4j explain: bad class path entry " + e);
                    return 2;
                }
            }
        }
        for (String in : inputs) {
            Path p = Path.of(in);
            if (Files.exists(p)) {
                try {
                    urls.add(p.toUri().toURL());
                } catch (IOException x) {
                    // listed below as unreadable
                }
            }
        }
        List<MethodPlan> plans = new ArrayList<>();
        List<String[]> loops = new ArrayList<>();
        int status = 0;
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), null)) {
            for (String in : inputs) {
                List<byte[]> classes = classes(in, loader);
                if (classes == null) {
                    err.println("acc4j explain: cannot read " + in + " (a class name on the class path, a jar or a"
                            + " folder of classes)");
                    status = 1;
                    continue;
                }
                for (byte[] bytes : classes) {
                    plans.addAll(plan(bytes, loader, err));
                    loops.addAll(loops(bytes, loader, err));
                }
            }
        } catch (IOException e) {
            err.println("acc4j explain: " + e.getMessage());
            return 1;
        }
        if (json) {
            StringBuilder b = new StringBuilder("{\"methods\":[");
            for (int i = 0; i < plans.size(); i++) {
                b.append(i > 0 ? ",\n" : "\n").append(PlanReport.json(plans.get(i)));
            }
            b.append("\n],\"loops\":[");
            for (int i = 0; i < loops.size(); i++) {
                b.append(i > 0 ? ",\n" : "\n").append("{\"region\":").append(loops.get(i)[0]).append(",\"text\":\"")
                        .append(loops.get(i)[1].replace("\\", "\\\\").replace("\"", "\\\"")).append("\"}");
            }
            out.println(b.append("\n]}"));
        } else {
            if (plans.isEmpty()) {
                out.println("no @Kernels method found");
            }
            for (MethodPlan p : plans) {
                PlanReport.lines(p).forEach(out::println);
            }
            for (String[] l : loops) {
                out.println(l[1]);
            }
        }
        return status;
    }

    private static List<MethodPlan> plan(byte[] bytes, ClassLoader loader, PrintStream err) {
        List<MethodPlan> out = new ArrayList<>();
        if (!ClassRewriter.mentionsKernels(bytes)) {
            return out;
        }
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, 0);
        for (MethodNode mn : cn.methods) {
            if (ClassRewriter.kernels(mn)) {
                try {
                    out.add(Planner.plan(cn, mn, name -> SiteTransformer.read(loader, name)));
                } catch (Exception | StackOverflowError e) {
                    err.println("acc4j explain: cannot plan " + cn.name.replace('/', '.') + "." + mn.name + ": " + e);
                }
            }
        }
        return out;
    }

    /**
     * The host loops of a class that call {@code @Kernels} methods: for each, whether it gets an implicit data
     * region ("true"/"false") and the report's line.
     */
    private static List<String[]> loops(byte[] bytes, ClassLoader loader, PrintStream err) {
        List<String[]> out = new ArrayList<>();
        org.acc4j.compiler.frontend.Inliner.ClassSource source = name -> SiteTransformer.read(loader, name);
        LoopRegions.Kernels others = LoopRegions.fromClassFiles(source);
        if (!ClassRewriter.mentionsKernels(bytes) && !LoopRegions.mayCallKernels(bytes,
                owner -> !owner.startsWith("java/") && mentions(source.bytes(owner)))) {
            return out;
        }
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, 0);
        LoopRegions.Kernels kernels = LoopRegions.withClass(cn, others);
        for (MethodNode mn : cn.methods) {
            if (ClassRewriter.kernels(mn) || (mn.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0
                    || !LoopRegions.callsKernels(mn, kernels)) {
                continue;
            }
            try {
                LoopRegions.Result r = LoopRegions.analyze(cn, mn, kernels, source);
                for (LoopRegions.Region g : r.regions()) {
                    out.add(new String[] {"true", LoopRegions.describe(cn, mn, g)});
                }
                r.notes().forEach(n -> out.add(new String[] {"false", n}));
            } catch (Exception | StackOverflowError e) {
                err.println("acc4j explain: cannot look at the loops of " + cn.name.replace('/', '.') + "." + mn.name
                        + ": " + e);
            }
        }
        return out;
    }

    private static boolean mentions(byte[] bytes) {
        return bytes != null && ClassRewriter.mentionsKernels(bytes);
    }

    /** The class files an input names: a class on the class path, a jar, or a folder; null when it cannot be read. */
    private static List<byte[]> classes(String in, ClassLoader loader) throws IOException {
        Path p = Path.of(in);
        List<byte[]> out = new ArrayList<>();
        if (Files.isDirectory(p)) {
            try (Stream<Path> files = Files.walk(p)) {
                for (Path f : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class")).sorted()::iterator) {
                    out.add(Files.readAllBytes(f));
                }
            }
            return out;
        }
        if (Files.isRegularFile(p) && in.endsWith(".jar")) {
            try (JarFile jar = new JarFile(p.toFile())) {
                List<JarEntry> entries = new ArrayList<>();
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    JarEntry je = e.nextElement();
                    if (je.getName().endsWith(".class") && !je.getName().startsWith("META-INF/")) {
                        entries.add(je);
                    }
                }
                entries.sort((a, b) -> a.getName().compareTo(b.getName()));
                for (JarEntry je : entries) {
                    try (InputStream s = jar.getInputStream(je)) {
                        out.add(s.readAllBytes());
                    }
                }
            }
            return out;
        }
        if (Files.isRegularFile(p) && in.endsWith(".class")) {
            out.add(Files.readAllBytes(p));
            return out;
        }
        byte[] bytes = SiteTransformer.read(loader, in.replace('.', '/'));
        if (bytes == null) {
            return null;
        }
        out.add(bytes);
        return out;
    }
}
