package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.acc4j.runtime.transfer.StagedCopy.Settings;
import org.junit.jupiter.api.Test;

/**
 * {@link Settings}: each key of the settings text, and each {@code with} method, changes exactly its own field and
 * keeps every other one; together the keys reach every field.
 */
class StagingSettingsTest {
    private static final Settings BASE = Settings.DEFAULT;

    /** Each key with a value that differs from {@link Settings#DEFAULT}, and the fields it sets (comma-separated). */
    private static Map<String, String> keys() {
        Map<String, String> k = new LinkedHashMap<>();
        k.put("min=1m", "minBytes");
        k.put("rows=3m", "rowsMinBytes");
        k.put("slot=16m", "slotBytes");
        k.put("chunk=1m", "minChunkBytes");
        k.put("piece=32k", "minPieceBytes");
        k.put("ramp=128k", "rampBytes,outRampBytes");
        k.put("outramp=128k", "outRampBytes");
        k.put("inchunks=" + (BASE.inChunks() + 1), "inChunks");
        k.put("inchunk=2m", "inChunkBytes");
        k.put("outchunk=2m", "outChunkBytes");
        k.put("spin=" + (Crew.SPIN_MICROS + 7), "spinMicros");
        k.put("poll=5", "pollMicros");
        k.put("slots=3", "slots");
        k.put("lanes=1", "lanes");
        k.put("chunks=5", "chunksPerCopy");
        k.put("threads=" + (BASE.threads() + 1), "threads");
        k.put("copy=unsafe", "copy");
        k.put("wide=128m", "wideBytes");
        k.put("pipelined=false", "pipelined");
        k.put("wc=true", "writeCombined");
        k.put("caller=false", "callerCopies");
        k.put("interleave=false", "interleave");
        k.put("flush=3m", "flushBytes");
        k.put("flush=true", "flushBytes");
        k.put("flush=false", "flushBytes");
        k.put("inthreads=" + (BASE.inThreads() + 1), "inThreads");
        return k;
    }

    @Test
    void parsingEachKeyChangesExactlyThatField() throws Exception {
        Set<String> reached = new TreeSet<>();
        for (Map.Entry<String, String> e : keys().entrySet()) {
            Settings changed = Settings.parse(e.getKey(), BASE);
            Set<String> fields = Set.of(e.getValue().split(","));
            assertEquals(fields, differing(BASE, changed), e.getKey());
            reached.addAll(fields);
        }
        assertEquals(allFields(), reached, "a field that no key of the settings text sets");
    }

    @Test
    void parsedValuesAreTheOnesWritten() {
        assertEquals(1L << 20, Settings.parse("min=1m", BASE).minBytes());
        assertEquals(3L << 20, Settings.parse("rows=3m", BASE).rowsMinBytes());
        assertEquals(16L << 20, Settings.parse("slot=16m", BASE).slotBytes());
        assertEquals(2L << 30, Settings.parse("min=2g", BASE).minBytes());
        assertEquals(4096, Settings.parse("min=4096", BASE).minBytes());
        assertEquals(32L << 10, Settings.parse("piece=32K", BASE).minPieceBytes());
        assertEquals(5, Settings.parse("poll=5", BASE).pollMicros());
        assertEquals(HostCopy.UNSAFE, Settings.parse("copy=UNSAFE", BASE).copy());
        assertEquals(Long.MAX_VALUE, Settings.parse("flush=true", BASE).flushBytes());
        assertEquals(0, Settings.parse("flush=false", BASE).flushBytes());
        assertEquals(3L << 20, Settings.parse(" flush = 3m ", BASE).flushBytes());
    }

    @Test
    void eachWithMethodChangesExactlyItsField() throws Exception {
        Map<String, UnaryOperator<Settings>> withs = new LinkedHashMap<>();
        withs.put("threads", s -> s.withThreads(s.threads() + 1));
        withs.put("copy", s -> s.withCopy(HostCopy.UNSAFE));
        withs.put("pipelined", s -> s.withPipelined(!s.pipelined()));
        withs.put("writeCombined", s -> s.withWriteCombined(!s.writeCombined()));
        withs.put("wideBytes", s -> s.withWideBytes(s.wideBytes() * 2));
        withs.put("callerCopies", s -> s.withCallerCopies(!s.callerCopies()));
        withs.put("interleave", s -> s.withInterleave(!s.interleave()));
        withs.put("flushBytes", s -> s.withFlushBytes(s.flushBytes() + 8));
        withs.put("inThreads", s -> s.withInThreads(s.inThreads() + 1));
        for (Map.Entry<String, UnaryOperator<Settings>> e : withs.entrySet()) {
            assertEquals(Set.of(e.getKey()), differing(BASE, e.getValue().apply(BASE)), e.getKey());
        }
        assertEquals(Long.MAX_VALUE, BASE.withWriteBack(true).flushBytes());
        assertEquals(BASE.withFlushBytes(0), BASE.withWriteBack(false));
    }

    @Test
    void aCopyKeepsEveryFieldAndChecksTheChange() {
        Settings odd = Settings.parse("min=1m,rows=3m,slot=16m,chunk=1m,piece=32k,ramp=128k,spin=9,poll=5,slots=3,"
                + "lanes=1,chunks=5,threads=3,copy=unsafe,wide=128m,pipelined=false,wc=true,caller=false,"
                + "interleave=false,flush=3m,inthreads=5", BASE);
        assertEquals(odd, odd.edit(b -> { }));
        assertNotEquals(BASE, odd);
        assertThrows(IllegalArgumentException.class, () -> BASE.withThreads(-1));
        assertThrows(IllegalArgumentException.class, () -> BASE.withFlushBytes(-1));
    }

    private static Set<String> allFields() {
        Set<String> names = new TreeSet<>();
        Arrays.stream(Settings.class.getRecordComponents()).forEach(c -> names.add(c.getName()));
        return names;
    }

    /** The names of the fields whose values differ between {@code a} and {@code b}. */
    private static Set<String> differing(Settings a, Settings b) throws Exception {
        Set<String> names = new TreeSet<>();
        for (RecordComponent c : Settings.class.getRecordComponents()) {
            if (!c.getAccessor().invoke(a).equals(c.getAccessor().invoke(b))) {
                names.add(c.getName());
            }
        }
        return names;
    }
}
