package org.acc4j.runtime.transfer;

import org.acc4j.runtime.transfer.StagedCopy.Settings;

/** Reads staging settings from their text ({@link Settings#parse}): {@code key=value} entries, comma-separated. */
final class StagingSpec {

    private StagingSpec() {
    }

    /** {@code base} with the changes of {@code spec}; see {@link Settings#parse}. */
    static Settings parse(String spec, Settings base) {
        long min = base.minBytes();
        long slot = base.slotBytes();
        int slots = base.slots();
        int lanes = base.lanes();
        long chunk = base.minChunkBytes();
        int chunks = base.chunksPerCopy();
        long piece = base.minPieceBytes();
        long rows = base.rowsMinBytes();
        int threads = base.threads();
        HostCopy copy = base.copy();
        boolean pipelined = base.pipelined();
        long ramp = base.rampBytes();
        long spin = base.spinMicros();
        long poll = base.pollMicros();
        boolean wc = base.writeCombined();
        long wide = base.wideBytes();
        boolean caller = base.callerCopies();
        boolean interleave = base.interleave();
        long flush = base.flushBytes();
        int inThreads = base.inThreads();
        long inChunk = base.inChunkBytes();
        long outChunk = base.outChunkBytes();
        int inChunks = base.inChunks();
        long outRamp = base.outRampBytes();
        for (String entry : spec.split(",")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("staging setting '" + e + "' is not key=value");
            }
            String key = e.substring(0, eq).trim();
            String value = e.substring(eq + 1).trim();
            try {
                switch (key) {
                    case "min" -> min = bytes(value);
                    case "rows" -> rows = bytes(value);
                    case "slot" -> slot = bytes(value);
                    case "chunk" -> chunk = bytes(value);
                    case "piece" -> piece = bytes(value);
                    case "ramp" -> {
                        ramp = bytes(value);
                        outRamp = ramp;
                    }
                    case "outramp" -> outRamp = bytes(value);
                    case "inchunks" -> inChunks = Integer.parseInt(value);
                    case "spin" -> spin = Long.parseLong(value);
                    case "poll" -> poll = Long.parseLong(value);
                    case "slots" -> slots = Integer.parseInt(value);
                    case "lanes" -> lanes = Integer.parseInt(value);
                    case "chunks" -> chunks = Integer.parseInt(value);
                    case "threads" -> threads = Integer.parseInt(value);
                    case "copy" -> copy = HostCopy.valueOf(value.toUpperCase(java.util.Locale.ROOT));
                    case "wide" -> wide = bytes(value);
                    case "pipelined" -> pipelined = bool(value);
                    case "wc" -> wc = bool(value);
                    case "caller" -> caller = bool(value);
                    case "interleave" -> interleave = bool(value);
                    case "flush" -> flush = switch (value) {
                        case "true" -> Long.MAX_VALUE;
                        case "false" -> 0;
                        default -> bytes(value);
                    };
                    case "inthreads" -> inThreads = Integer.parseInt(value);
                    case "inchunk" -> inChunk = bytes(value);
                    case "outchunk" -> outChunk = bytes(value);
                    default -> throw new IllegalArgumentException("unknown key");
                }
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException("staging setting '" + e + "' not understood: keys min, rows,"
                        + " slot, chunk, inchunk, outchunk, piece, ramp, outramp, wide, flush (bytes, suffix k, m or g),"
                        + " slots, lanes, chunks, inchunks,"
                        + " threads, inthreads"
                        + " (counts), spin, poll (microseconds), copy (buffer or unsafe), pipelined, wc, caller,"
                        + " interleave (true or false)", x);
            }
        }
        return new Settings(min, slot, slots, lanes, chunk, chunks, piece, rows, threads, copy, pipelined, ramp,
                spin, poll, wc, wide, caller, interleave, flush, inThreads, inChunk, outChunk, inChunks, outRamp);
    }

    private static boolean bool(String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not true or false");
        };
    }

    private static long bytes(String value) {
        String v = value.toLowerCase(java.util.Locale.ROOT);
        long scale = switch (v.isEmpty() ? ' ' : v.charAt(v.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1;
        };
        return Long.parseLong(scale == 1 ? v : v.substring(0, v.length() - 1)) * scale;
    }
}
