package org.acc4j.agent;

import java.io.PrintStream;

/**
 * {@code java -jar acc.jar COMMAND ...}: acc4j's command line. Prints its usage; an unknown command is an error
 * (exit status 2).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        if (args.length == 1 && (args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h"))) {
            usage(System.out);
            return;
        }
        if (args.length > 0) {
            System.err.println("acc4j: unknown command: " + args[0]);
        }
        usage(System.err);
        System.exit(2);
    }

    private static void usage(PrintStream out) {
        String version = Main.class.getPackage().getImplementationVersion();
        out.println("acc4j " + (version == null ? "" : version) + ": OpenACC-style directives for Java");
        out.println("usage: java -jar acc.jar explain [--json] --class-path CP CLASS_OR_JAR...");
        out.println("       java -jar acc.jar help");
        out.println("run a program with acc4j: java -javaagent:acc.jar -cp CP MAIN_CLASS [ARGS...]");
    }
}
