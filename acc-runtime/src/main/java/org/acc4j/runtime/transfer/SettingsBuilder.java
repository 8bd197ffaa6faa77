package org.acc4j.runtime.transfer;

/**
 * The fields of {@link StagedCopy.Settings}, to be changed before {@link #build} makes them settings again (and
 * checks them): the one place that copies every field, for {@link StagedCopy.Settings#edit} and the settings text
 * ({@link StagingSpec}).
 */
final class SettingsBuilder {
    long minBytes;
    long slotBytes;
    int slots;
    int lanes;
    long minChunkBytes;
    int chunksPerCopy;
    long minPieceBytes;
    long rowsMinBytes;
    int threads;
    HostCopy copy;
    boolean pipelined;
    long rampBytes;
    long spinMicros;
    long pollMicros;
    boolean writeCombined;
    long wideBytes;
    boolean callerCopies;
    boolean interleave;
    long flushBytes;
    int inThreads;
    long inChunkBytes;
    long outChunkBytes;
    int inChunks;
    long outRampBytes;

    SettingsBuilder(StagedCopy.Settings s) {
        minBytes = s.minBytes();
        slotBytes = s.slotBytes();
        slots = s.slots();
        lanes = s.lanes();
        minChunkBytes = s.minChunkBytes();
        chunksPerCopy = s.chunksPerCopy();
        minPieceBytes = s.minPieceBytes();
        rowsMinBytes = s.rowsMinBytes();
        threads = s.threads();
        copy = s.copy();
        pipelined = s.pipelined();
        rampBytes = s.rampBytes();
        spinMicros = s.spinMicros();
        pollMicros = s.pollMicros();
        writeCombined = s.writeCombined();
        wideBytes = s.wideBytes();
        callerCopies = s.callerCopies();
        interleave = s.interleave();
        flushBytes = s.flushBytes();
        inThreads = s.inThreads();
        inChunkBytes = s.inChunkBytes();
        outChunkBytes = s.outChunkBytes();
        inChunks = s.inChunks();
        outRampBytes = s.outRampBytes();
    }

    StagedCopy.Settings build() {
        return new StagedCopy.Settings(minBytes, slotBytes, slots, lanes, minChunkBytes, chunksPerCopy, minPieceBytes,
                rowsMinBytes, threads, copy, pipelined, rampBytes, spinMicros, pollMicros, writeCombined,
                wideBytes, callerCopies, interleave, flushBytes, inThreads, inChunkBytes, outChunkBytes,
                inChunks, outRampBytes);
    }
}
