package org.acc4j.runtime.transfer;

import org.acc4j.runtime.transfer.StagedCopy.Settings;

/** Reads staging settings from their text ({@link Settings#parse}): {@code key=value} entries, comma-separated. */
final class StagingSpec {

    private StagingSpec() {
    }

    /** {@code base} with the changes of {@code spec}; see {@link Settings#parse}. */
    static Settings parse(String spec, Settings base) {
        SettingsBuilder b = new SettingsBuilder(base);
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
                    case "min" -> b.minBytes = bytes(value);
                    case "rows" -> b.rowsMinBytes = bytes(value);
                    case "slot" -> b.slotBytes = bytes(value);
                    case "chunk" -> b.minChunkBytes = bytes(value);
                    case "piece" -> b.minPieceBytes = bytes(value);
                    case "ramp" -> {
                        b.rampBytes = bytes(value);
                        b.outRampBytes = b.rampBytes;
                    }
                    case "outramp" -> b.outRampBytes = bytes(value);
                    case "inchunks" -> b.inChunks = Integer.parseInt(value);
                    case "spin" -> b.spinMicros = Long.parseLong(value);
                    case "poll" -> b.pollMicros = Long.parseLong(value);
                    case "slots" -> b.slots = Integer.parseInt(value);
                    case "lanes" -> b.lanes = Integer.parseInt(value);
                    case "chunks" -> b.chunksPerCopy = Integer.parseInt(value);
                    case "threads" -> b.threads = Integer.parseInt(value);
                    case "copy" -> b.copy = HostCopy.valueOf(value.toUpperCase(java.util.Locale.ROOT));
                    case "wide" -> b.wideBytes = bytes(value);
                    case "pipelined" -> b.pipelined = bool(value);
                    case "wc" -> b.writeCombined = bool(value);
                    case "caller" -> b.callerCopies = bool(value);
                    case "interleave" -> b.interleave = bool(value);
                    case "flush" -> b.flushBytes = switch (value) {
                        case "true" -> Long.MAX_VALUE;
                        case "false" -> 0;
                        default -> bytes(value);
                    };
                    case "inthreads" -> b.inThreads = Integer.parseInt(value);
                    case "inchunk" -> b.inChunkBytes = bytes(value);
                    case "outchunk" -> b.outChunkBytes = bytes(value);
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
        return b.build();
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
