package org.acc4j.samples.numerics;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A SHA-256 over the raw bits of a run's results ({@link Double#doubleToRawLongBits}, so that two runs agree only
 * when every element and scalar agrees bit for bit, NaN payloads and signed zeros included). Each array is
 * preceded by its length, so that arrays of other shapes with the same elements differ.
 */
public final class Checksum {
    private final MessageDigest sha;
    private final byte[] buf = new byte[8192];
    private int used;
    private long values;

    public Checksum() {
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }

    private void put(long bits) {
        if (used + 8 > buf.length) {
            sha.update(buf, 0, used);
            used = 0;
        }
        for (int s = 56; s >= 0; s -= 8) {
            buf[used++] = (byte) (bits >>> s);
        }
    }

    public Checksum add(double v) {
        put(Double.doubleToRawLongBits(v));
        values++;
        return this;
    }

    public Checksum add(long v) {
        put(v);
        values++;
        return this;
    }

    public Checksum add(int v) {
        return add((long) v);
    }

    public Checksum add(double[] a) {
        put(a.length);
        for (double v : a) {
            add(v);
        }
        return this;
    }

    public Checksum add(double[][] a) {
        put(a.length);
        for (double[] row : a) {
            add(row);
        }
        return this;
    }

    public Checksum add(int[] a) {
        put(a.length);
        for (int v : a) {
            add(v);
        }
        return this;
    }

    /** How many values (elements and scalars) went in. */
    public long values() {
        return values;
    }

    /** The digest so far, as 64 hex digits; the checksum can go on taking values afterwards. */
    public String hex() {
        MessageDigest copy;
        try {
            copy = (MessageDigest) sha.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
        copy.update(buf, 0, used);
        StringBuilder sb = new StringBuilder(64);
        for (byte b : copy.digest()) {
            sb.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
        }
        return sb.toString();
    }
}
