package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Block} on {@link FakeMemory}: its buffer lives while the array or any row slice holds it, and each slice
 * moves exactly its own row, at its own offset, and only a row of the block's type and length.
 */
class BlockTest {
    private static final int ROWS = 5;
    private static final int LENGTH = 7;
    private static final long ROW_BYTES = LENGTH * Double.BYTES;

    private final FakeMemory memory = new FakeMemory();
    private final Traffic traffic = new Traffic(memory);
    private final Random random = new Random(23);

    @AfterEach
    void noMisuse() {
        assertEquals(List.of(), memory.violations());
    }

    @Test
    void theBufferIsFreedWhenTheArrayAndEverySliceHaveLetGo() {
        Block block = newBlock();
        block.hold();
        Block.Slice[] slices = new Block.Slice[ROWS];
        for (int i = 0; i < ROWS; i++) {
            slices[i] = block.slice(i, new double[LENGTH]);
        }
        block.release();
        for (int i = 0; i < ROWS; i++) {
            assertEquals(1, memory.live(), "held by slice " + i + " on");
            slices[i].close();
            // a second close lets go of nothing more
            slices[i].close();
        }
        assertEquals(0, memory.live());
        assertEquals(new TransferStats(0, 0, 0, 0, 1, 1), traffic.stats());
    }

    @Test
    void eachSliceMovesItsOwnRowAtItsOwnOffset() {
        Block block = newBlock();
        block.hold();
        double[][] rows = randomRows();
        block.buffer.uploadRows(rows);
        Block.Slice[] slices = new Block.Slice[ROWS];
        for (int i = 0; i < ROWS; i++) {
            slices[i] = block.slice(i, rows[i]);
            assertEquals(block.buffer.address() + i * ROW_BYTES, slices[i].address());
            assertEquals(ROW_BYTES, slices[i].bytes());
            double[] back = new double[LENGTH];
            slices[i].download(back);
            assertArrayEquals(rows[i], back, "row " + i);
        }
        double[] fresh = randomRows()[0];
        slices[2].upload(fresh);
        slices[4].zero();
        double[][] all = new double[ROWS][LENGTH];
        block.buffer.downloadRows(all);
        for (int i = 0; i < ROWS; i++) {
            double[] expected = i == 2 ? fresh : i == 4 ? new double[LENGTH] : rows[i];
            assertArrayEquals(expected, all[i], "row " + i);
        }
        for (Block.Slice s : slices) {
            s.close();
        }
        block.release();
        assertEquals(0, memory.live());
    }

    @Test
    void aSliceTakesOnlyARowOfTheBlocksTypeAndLength() {
        Block block = newBlock();
        block.hold();
        Block.Slice slice = block.slice(3, new double[LENGTH]);
        for (Object wrong : new Object[] {new double[LENGTH + 1], new float[LENGTH], null}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> slice.upload(wrong));
            assertTrue(e.getMessage().contains("the row at byte " + 3 * ROW_BYTES), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> slice.download(wrong));
        }
        assertThrows(UnsupportedOperationException.class, () -> slice.writeLongs(new long[LENGTH]));
        slice.close();
        block.release();
    }

    @Test
    void rowEntriesAreTheBlocksOnlyWithEveryOpenSliceInOrder() {
        Block block = newBlock();
        block.hold();
        double[][] rows = randomRows();
        Entry[] entries = new Entry[ROWS];
        for (int i = 0; i < ROWS; i++) {
            entries[i] = rowEntry(rows[i], block.slice(i, rows[i]));
        }
        assertTrue(block.listedBy(entries));
        Entry[] swapped = entries.clone();
        swapped[1] = entries[2];
        swapped[2] = entries[1];
        assertFalse(block.listedBy(swapped), "rows out of order");
        Entry[] other = entries.clone();
        other[0] = rowEntry(rows[0], memory.allocate(rows[0]));
        assertFalse(block.listedBy(other), "a row in a buffer of its own");
        entries[3].buffer.close();
        assertFalse(block.listedBy(entries), "a closed slice");
        other[0].buffer.close();
        for (Entry e : entries) {
            e.buffer.close();
        }
        block.release();
        assertEquals(0, memory.live());
    }

    private Block newBlock() {
        memory.blocks(true);
        return new Block(traffic, traffic.allocateRaw(ROWS * ROW_BYTES, "double[5][7] rows"), ROW_BYTES);
    }

    private double[][] randomRows() {
        double[][] rows = new double[ROWS][LENGTH];
        for (double[] row : rows) {
            for (int j = 0; j < LENGTH; j++) {
                row[j] = random.nextDouble();
            }
        }
        return rows;
    }

    private Entry rowEntry(double[] row, Buffer buffer) {
        return new Entry(this, new WeakKey(row, null), buffer, row, null, null);
    }
}
