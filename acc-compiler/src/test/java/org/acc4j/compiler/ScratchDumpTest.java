package org.acc4j.compiler;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ScratchDumpTest {
    @Test
    void dump() throws Exception {
        String setting = System.getProperty("scratch.setting", "align=on");
        for (String name : new String[] {"sevenPoint", "laplacian", "thirteenPoint"}) {
            CompiledMethod m = MarchingTest.withSetting(setting, name);
            KernelPlan.Unchecked u = MarchingTest.marched(m);
            Files.writeString(Path.of("/tmp/lapdump/" + name + ".ptx"), u.ptx());
            Files.writeString(Path.of("/tmp/lapdump/" + name + ".txt"), String.join("\n", m.report()));
        }
    }
}
