package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Row tables in real device memory: what {@link CudaMemory} allocates, writes and frees for two-dimensional
 * arrays, read back with {@code cuMemcpyDtoH}. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class RowTableGpuTest {

    private static Context context;

    @BeforeAll
    static void open() {
        try {
            List<Device> devices = Device.all();
            if (!devices.isEmpty()) {
                context = Context.open(devices.get(0));
            }
        } catch (LinkageError | DriverException e) {
            // no driver: every test skips
        }
    }

    @AfterAll
    static void close() {
        if (context != null) {
            context.close();
        }
    }

    @BeforeEach
    void device() {
        assumeTrue(context != null, "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        context.makeCurrent();
    }

    private static DeviceBuffer cuda(PresentTable table, Object array) {
        return CudaMemory.deviceBuffer(table.lookup(array));
    }

    /** The row table of {@code array} as the device holds it. */
    private static long[] words(PresentTable table, Object array) {
        long[] words = new long[2 * (((Object[]) array).length + 1)];
        cuda(table, array).copyToHost(words);
        return words;
    }

    private static void assertListsRows(PresentTable table, double[][] array) {
        long[] words = words(table, array);
        for (int i = 0; i < array.length; i++) {
            assertEquals(table.lookup(array[i]).address(), words[2 * i], "address of row " + i);
            assertEquals(array[i].length, words[2 * i + 1], "length of row " + i + ", padding zero");
        }
    }

    @Test
    void tablesListRowAddressesAndLengthsAndRowsComeBack() {
        CudaMemory memory = new CudaMemory();
        try (PresentTable table = new PresentTable(memory)) {
            double[] shared = {1, 2, 3};
            double[][] a = {{4, 5}, shared, {}, {6}};
            double[][] b = {shared};
            table.enter(a, Clause.COPY);
            table.enter(b, Clause.COPYIN);
            assertEquals(80L, cuda(table, a).bytes());
            assertListsRows(table, a);
            assertEquals(0L, words(table, a)[4], "an empty row has no device memory");
            assertEquals(words(table, a)[2], words(table, b)[0], "a shared row is one buffer");
            double[] onDevice = new double[3];
            cuda(table, shared).copyToHost(onDevice);
            assertArrayEquals(shared, onDevice);

            // play a kernel on row 0, replace row 3, and enter again: the table follows the host's rows
            table.lookup(a[0]).zero();
            long oldRow3 = words(table, a)[6];
            a[3] = new double[] {7, 8};
            table.enter(a, Clause.COPY);
            assertListsRows(table, a);
            assertNotEquals(oldRow3, words(table, a)[6]);
            table.exit(a, Clause.COPY);
            table.exit(a, Clause.COPY);
            assertArrayEquals(new double[][] {{0, 0}, {1, 2, 3}, {}, {7, 8}}, a);
            table.exit(b, Clause.COPYIN);
            assertEquals(0, table.size());
        }
        assertEquals(0L, memory.bytesInUse());
    }

    @Test
    void aLargeRectangularArrayRoundTrips() {
        CudaMemory memory = new CudaMemory();
        int rows = 1000;
        int columns = 1001;
        float[][] a = new float[rows][columns];
        java.util.Random random = new java.util.Random(42);
        for (float[] row : a) {
            for (int j = 0; j < columns; j++) {
                row[j] = random.nextFloat();
            }
        }
        float[][] expected = new float[rows][];
        for (int i = 0; i < rows; i++) {
            expected[i] = a[i].clone();
        }
        try (PresentTable table = new PresentTable(memory)) {
            table.enterDynamic(a, Clause.COPYIN);
            long[] words = new long[2 * (rows + 1)];
            cuda(table, a).copyToHost(words);
            for (int i = 0; i < rows; i++) {
                assertEquals(table.lookup(a[i]).address(), words[2 * i]);
                assertEquals(columns, words[2 * i + 1]);
            }
            // one block: the trailer holds its start and the row length, and row i is at i * rowBytes
            assertEquals(table.lookup(a[0]).address(), words[2 * rows]);
            assertEquals(columns, words[2 * rows + 1]);
            assertEquals(table.lookup(a[0]).address() + 4L * columns * (rows - 1), table.lookup(a[rows - 1]).address());
            for (float[] row : a) {
                java.util.Arrays.fill(row, -1f);
            }
            table.updateHost(a);
            assertArrayEquals(expected, a);
            assertEquals((long) (rows + 1) * PresentTable.ROW_ENTRY_BYTES + 4L * rows * columns, memory.bytesInUse());
            long block = table.lookup(a[0]).address();
            long rowTable = table.lookup(a).address();
            table.exitDynamic(a, Clause.DELETE, false);
            // the same array with the same rows comes back into its kept layout: nothing allocated or rewritten
            a[rows - 1][columns - 1] = 9f;
            table.enterDynamic(a, Clause.COPYIN);
            assertEquals(block, table.lookup(a[0]).address());
            assertEquals(rowTable, table.lookup(a).address());
            cuda(table, a).copyToHost(words);
            assertEquals(block, words[2 * rows], "the trailer still holds the block's start");
            java.util.Arrays.fill(a[rows - 1], -1f);
            table.updateHost(a);
            assertEquals(9f, a[rows - 1][columns - 1], "the host's values went in");
            table.exitDynamic(a, Clause.DELETE, false);
            assertEquals(0L, memory.spareBytes(), "kept, not spare");
            assertTrue(table.freeKept());
            assertEquals(4L * rows * columns + 16L * (rows + 1), memory.spareBytes(),
                    "the block and the table are kept for the next call's array");
            // the next array of that shape takes it back, with its own values
            float[][] b = new float[rows][columns];
            b[rows - 1][columns - 1] = 5f;
            table.enterDynamic(b, Clause.COPYIN);
            assertEquals(0L, memory.spareBytes(), "both were taken back");
            b[rows - 1][columns - 1] = 0f;
            table.updateHost(b);
            assertEquals(5f, b[rows - 1][columns - 1]);
            assertEquals(0f, b[0][0]);
            table.exitDynamic(b, Clause.DELETE, false);
        }
        assertEquals(0L, memory.bytesInUse());
        assertEquals(0L, memory.spareBytes(), "the spare buffers go with the table");
    }
}
