package org.acc4j.runtime.transfer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Array;
import java.util.List;
import java.util.Random;
import org.acc4j.runtime.transfer.StagedCopy.Settings;
import org.junit.jupiter.api.Test;

/**
 * The rows of a rectangular two-dimensional array moved as one pipelined copy ({@link StagedCopy#rowsToDevice},
 * {@link StagedCopy#rowsToHost}) against {@link FakeLanes}: every element type, row lengths below, at and across
 * chunk and slot boundaries, so that chunks hold the end of one row and the start of the next; the device bytes
 * are checked against the rows laid end to end, and the rows read back against other bytes put on the device.
 */
class StagedRowsTest {
    /** Slots of 64 bytes, 3 per lane, 2 lanes; chunks of 16 to 64 bytes, pieces from 8 bytes. */
    private static final Settings SMALL = new Settings(0, 64, 3, 2, 16, 4, 8);

    @Test
    void rowsLandEndToEndAndComeBackForEveryTypeAndShape() {
        FakeLanes lanes = new FakeLanes();
        StagedCopy<FakeDevice> staged = new StagedCopy<>(SMALL, lanes);
        Random r = new Random(7);
        Class<?>[] types = {byte[].class, short[].class, char[].class, int[].class, long[].class, float[].class,
                double[].class};
        for (Class<?> type : types) {
            for (int rows : new int[] {1, 2, 3, 7, 13}) {
                for (int columns : new int[] {1, 2, 3, 5, 8, 9, 17, 31, 33, 100}) {
                    Object[] a = (Object[]) Array.newInstance(type, rows);
                    ByteArrayOutputStream end = new ByteArrayOutputStream();
                    for (int i = 0; i < rows; i++) {
                        a[i] = StagedCopyTest.random(type, columns, r);
                        end.writeBytes(StagedCopyTest.bytesOf(a[i]));
                    }
                    byte[] expected = end.toByteArray();
                    FakeDevice.Bytes device = FakeDevice.bytes(expected.length);
                    String what = type.getSimpleName() + " " + rows + " x " + columns;
                    assertTrue(staged.rowsToDevice(a, device), what);
                    assertArrayEquals(expected, device.data.array(), what);

                    byte[] other = new byte[expected.length];
                    r.nextBytes(other);
                    device.data.put(0, other);
                    Object[] back = (Object[]) Array.newInstance(type, rows);
                    for (int i = 0; i < rows; i++) {
                        back[i] = Array.newInstance(type.getComponentType(), columns);
                    }
                    assertTrue(staged.rowsToHost(device, back), what);
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    for (Object row : back) {
                        got.writeBytes(StagedCopyTest.bytesOf(row));
                    }
                    assertArrayEquals(other, got.toByteArray(), what + " back");
                }
            }
        }
        assertEquals(List.of(), lanes.violations);
        staged.close();
    }

    @Test
    void aWindowComesBackAloneForEveryTypeAndShape() {
        FakeLanes lanes = new FakeLanes();
        StagedCopy<FakeDevice> staged = new StagedCopy<>(SMALL, lanes);
        Random r = new Random(8);
        Class<?>[] types = {byte[].class, short[].class, int[].class, long[].class, double[].class};
        for (Class<?> type : types) {
            for (int rows : new int[] {1, 3, 7, 13}) {
                for (int columns : new int[] {1, 3, 9, 33, 100}) {
                    Object[] host = (Object[]) Array.newInstance(type, rows);
                    Object[] expected = (Object[]) Array.newInstance(type, rows);
                    for (int i = 0; i < rows; i++) {
                        host[i] = StagedCopyTest.random(type, columns, r);
                        expected[i] = Array.newInstance(type.getComponentType(), columns);
                        System.arraycopy(host[i], 0, expected[i], 0, columns);
                    }
                    int width = StagedCopyTest.bytesOf(host[0]).length / columns;
                    byte[] device = new byte[rows * columns * width];
                    r.nextBytes(device);
                    FakeDevice.Bytes d = FakeDevice.bytes(device.length);
                    d.data.put(0, device);
                    int r0 = rows / 3;
                    int r1 = rows - rows / 4;
                    int c0 = columns / 4;
                    int c1 = columns - columns / 3;
                    // what the window holds on the device, into the expected rows
                    for (int i = r0; i < r1; i++) {
                        Object onDevice = Array.newInstance(type.getComponentType(), columns);
                        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(device, i * columns * width, columns * width)
                                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
                        for (int j = 0; j < columns; j++) {
                            Array.set(onDevice, j, switch (width) {
                                case 1 -> b.get();
                                case 2 -> b.getShort();
                                case 4 -> type == int[].class ? (Object) b.getInt() : (Object) b.getFloat();
                                default -> type == long[].class ? (Object) b.getLong() : (Object) b.getDouble();
                            });
                        }
                        System.arraycopy(onDevice, c0, expected[i], c0, c1 - c0);
                    }
                    String what = type.getSimpleName() + " " + rows + " x " + columns + " window [" + r0 + ", " + r1
                            + ") x [" + c0 + ", " + c1 + ")";
                    boolean staged1 = staged.rowsToHost(d, host, r0, r1, c0, c1);
                    assertTrue(staged1 || (long) (r1 - r0) * columns * width == 0, what);
                    for (int i = 0; i < rows; i++) {
                        assertArrayEquals(StagedCopyTest.bytesOf(expected[i]), StagedCopyTest.bytesOf(host[i]),
                                what + " row " + i);
                    }
                }
            }
        }
        assertEquals(List.of(), lanes.violations);
        staged.close();
    }

    @Test
    void rowsOfDifferentLengthsOrTypesAreRefusedAndSmallCopiesDeclined() {
        StagedCopy<FakeDevice> staged = new StagedCopy<>(SMALL, new FakeLanes());
        assertThrows(IllegalArgumentException.class,
                () -> staged.rowsToDevice(new Object[] {new double[3], new double[4]}, FakeDevice.bytes(56)));
        assertThrows(IllegalArgumentException.class,
                () -> staged.rowsToDevice(new Object[] {new int[2], new float[2]}, FakeDevice.bytes(16)));
        assertFalse(staged.rowsToDevice(new Object[0], FakeDevice.bytes(0)), "nothing to stage");
        StagedCopy<FakeDevice> large = new StagedCopy<>(new Settings(1 << 20, 64, 3, 2, 16, 4, 8), new FakeLanes());
        assertFalse(large.rowsToDevice(new Object[] {new double[4]}, FakeDevice.bytes(32)), "below minBytes: direct");
    }

    @Test
    void aFailedRowCopyFreesItsLaneAndTheNextCopySucceeds() {
        FakeLanes lanes = new FakeLanes();
        StagedCopy<FakeDevice> staged = new StagedCopy<>(SMALL, lanes);
        double[][] a = new double[5][11];
        Random r = new Random(3);
        for (double[] row : a) {
            for (int j = 0; j < row.length; j++) {
                row[j] = r.nextDouble();
            }
        }
        lanes.failCopy = 3;
        assertThrows(IllegalStateException.class, () -> staged.rowsToDevice(a, FakeDevice.bytes(5 * 11 * 8)));
        lanes.failCopy = 0;
        FakeDevice.Bytes device = FakeDevice.bytes(5 * 11 * 8);
        assertTrue(staged.rowsToDevice(a, device));
        for (int i = 0; i < 5; i++) {
            for (int j = 0; j < 11; j++) {
                assertEquals(a[i][j], device.data.getDouble((i * 11 + j) * 8), "element " + i + ", " + j);
            }
        }
        assertEquals(List.of(), lanes.violations);
        staged.close();
    }
}
