package org.acc4j.runtime.transfer;

/**
 * How a staged copy cuts an array of {@code length} elements of {@code width} bytes: into chunks, each staged in one
 * slot and moved by one device copy, and each chunk into pieces, one per core at a time; a piece never spans two
 * chunks. The middle chunks have one size ({@link #chunkElements}); with a ramp, the first chunks grow from the
 * ramp's size, doubling, up to the middle size and the last ones shrink back in the same steps. The device's first
 * copy then waits for little host work (to the device) and the host's first piece for a short device copy (to the
 * host), and the copy ends with little work of one side left after the other's: a pipeline's fill and drain, which
 * dominate a copy of a few chunks, are short. Chunk {@code k} covers elements {@code [first(k), first(k) + count(k))}
 * and pieces {@code [firstPiece(k), firstPiece(k + 1))}. Immutable.
 */
final class Plan {
    private final int width;
    private final long length;
    private final HostCopy copy;
    /** Elements of a middle chunk, and of its pieces. */
    private final int chunkElements;
    private final int pieceElements;
    /** Ramp chunks at each end. */
    private final int ramp;
    /** Per ramp step i (0 the smallest): elements before it, pieces before it, elements of its pieces. */
    private final long[] rampFirst;
    private final long[] rampPieces;
    private final int[] rampPieceElements;
    private final long middleChunks;
    private final long middleElements;
    private final long middlePieces;
    private final long chunks;
    private final long pieces;

    /**
     * @param chunkElements  elements of a middle chunk (at least 1)
     * @param rampElements   elements of the smallest ramp chunk; 0 (or not less than half a middle chunk): no ramp
     * @param minPieceElements the least elements of a piece
     * @param cores          cores that share a chunk: a chunk has about this many pieces where they are not too small
     */
    Plan(int width, long length, int chunkElements, long rampElements, long minPieceElements, int cores,
         HostCopy copy) {
        if (chunkElements < 1 || width < 1 || length < 0 || rampElements < 0 || cores < 1) {
            throw new IllegalArgumentException("bad plan: " + length + " elements of " + width + " bytes in chunks of "
                    + chunkElements + ", ramp " + rampElements + ", " + cores + " cores");
        }
        this.width = width;
        this.length = length;
        this.copy = copy;
        this.chunkElements = chunkElements;
        this.pieceElements = pieceElements(chunkElements, minPieceElements, cores);
        int steps = 0;
        if (rampElements > 0) {
            // steps r, 2r, 4r, ... below the middle size, as many as fit twice (up and down) in the array
            while (rampElements << steps < chunkElements && 2 * rampElements * ((1L << (steps + 1)) - 1) <= length
                    && steps < 40) {
                steps++;
            }
        }
        this.ramp = steps;
        this.rampFirst = new long[steps + 1];
        this.rampPieces = new long[steps + 1];
        this.rampPieceElements = new int[steps];
        for (int i = 0; i < steps; i++) {
            long size = rampElements << i;
            rampPieceElements[i] = pieceElements((int) size, minPieceElements, cores);
            rampFirst[i + 1] = rampFirst[i] + size;
            rampPieces[i + 1] = rampPieces[i] + ceilDiv(size, rampPieceElements[i]);
        }
        this.middleElements = length - 2 * rampFirst[steps];
        this.middleChunks = ceilDiv(middleElements, chunkElements);
        this.middlePieces = middleChunks == 0 ? 0 : (middleChunks - 1) * ceilDiv(chunkElements, pieceElements)
                + ceilDiv(middleElements - (middleChunks - 1) * chunkElements, pieceElements);
        this.chunks = 2L * steps + middleChunks;
        this.pieces = 2 * rampPieces[steps] + middlePieces;
    }

    private static int pieceElements(int chunk, long minPieceElements, int cores) {
        return (int) Math.min(chunk, Math.max(Math.max(1, minPieceElements), ceilDiv(chunk, cores)));
    }

    int width() {
        return width;
    }

    long length() {
        return length;
    }

    HostCopy copy() {
        return copy;
    }

    /** Elements of a middle chunk: the largest. */
    int chunkElements() {
        return chunkElements;
    }

    /** Elements of a middle chunk's pieces: the largest. */
    int pieceElements() {
        return pieceElements;
    }

    long chunks() {
        return chunks;
    }

    /** Pieces of the whole array. */
    long pieces() {
        return pieces;
    }

    /** The first element of chunk {@code k}; {@code first(chunks())} is the length. */
    long first(long k) {
        if (k < ramp) {
            return rampFirst[(int) k];
        }
        long m = k - ramp;
        if (m < middleChunks) {
            return rampFirst[ramp] + m * chunkElements;
        }
        return length - rampFirst[(int) (2L * ramp + middleChunks - k)];
    }

    int count(long k) {
        return (int) (first(k + 1) - first(k));
    }

    /** The first piece of chunk {@code k}; {@code firstPiece(chunks())} is the number of pieces. */
    long firstPiece(long k) {
        if (k < ramp) {
            return rampPieces[(int) k];
        }
        long m = k - ramp;
        if (m < middleChunks) {
            return rampPieces[ramp] + m * ceilDiv(chunkElements, pieceElements);
        }
        return pieces - rampPieces[(int) (2L * ramp + middleChunks - k)];
    }

    /** Elements of each piece of chunk {@code k} (its last may be shorter). */
    int pieceElements(long k) {
        if (k < ramp) {
            return rampPieceElements[(int) k];
        }
        if (k - ramp < middleChunks) {
            return pieceElements;
        }
        return rampPieceElements[(int) (2L * ramp + middleChunks - 1 - k)];
    }

    /** The chunk that piece {@code p} belongs to. */
    long chunkOf(long p) {
        long lo = 0;
        long hi = chunks - 1;
        while (lo < hi) {
            long mid = (lo + hi + 1) >>> 1;
            if (firstPiece(mid) <= p) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    @Override
    public String toString() {
        return "Plan[" + length + " elements of " + width + " bytes: " + chunks + " chunks (" + ramp
                + " ramp steps each end, middle chunks of " + chunkElements + "), " + pieces + " pieces]";
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
