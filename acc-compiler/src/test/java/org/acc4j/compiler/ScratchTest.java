package org.acc4j.compiler;

import org.acc4j.compiler.fixtures.Kernels1D;
import org.junit.jupiter.api.Test;

class ScratchTest {
    @Test
    void scratch() throws Exception {
        byte[] bytes = TestClasses.bytes(Kernels1D.class);
        for (var m : TestClasses.node(Kernels1D.class).methods) {
            if (m.name.equals("<init>")) continue;
            Compiler.Result r = Compiler.compile(bytes, m.name, m.desc, 90);
            if (r instanceof Compiler.Offload o) {
                for (KernelPlan k : o.method().kernels()) {
                    String err = Ptxas.assemble(Ptxas.find(), k.entry(), k.ptx());
                    System.out.println(m.name + " " + k.entry() + " ptxas: " + (err == null ? "ok" : err));
                    if (m.name.equals("intOps")) System.out.println(k.ptx());
                }
                System.out.println(o.method().report());
            } else {
                System.out.println(m.name + " HOST: " + ((Compiler.Host) r).reason());
            }
        }
    }
}
