package org.acc4j.runtime.transfer;

import java.nio.ByteBuffer;

/**
 * What a {@link StagedCopy} needs of the device: a few staging slots of host memory the device reaches by DMA, and
 * one ordered queue of asynchronous copies between those slots and device memory of type {@code D}, with a mark per
 * slot saying when its last copy has completed. On CUDA ({@link CudaLane}) a slot is a pinned buffer, the queue a
 * stream and the mark an event; tests use an in-memory fake.
 *
 * <p>Rules the pipeline keeps and a lane may check: a slot is written or read by the host only while no copy of it
 * is queued and not yet {@linkplain #await awaited}; copies run in the order they were queued. A lane serves one
 * transfer at a time. Calls that touch the device need its context current on the calling thread; {@link #host} is
 * plain memory, usable on any thread.
 *
 * @param <D> device memory: a {@code DeviceBuffer} on CUDA
 */
public interface Lane<D> extends AutoCloseable {

    /** How many slots there are. */
    int slots();

    /** The size of each slot in bytes. */
    long slotBytes();

    /** The whole memory of {@code slot} in the host's byte order (the device's), from position 0. */
    ByteBuffer host(int slot);

    /** Queues a copy of the first {@code bytes} of {@code slot} to {@code device} at byte {@code offset}; returns at once. */
    void toDevice(int slot, long bytes, D device, long offset);

    /** Queues a copy of {@code bytes} of {@code device} from byte {@code offset} into the start of {@code slot}. */
    void toHost(D device, long offset, int slot, long bytes);

    /** Waits until the last copy queued for {@code slot} has completed; returns at once when none is queued. */
    void await(int slot);

    /**
     * Whether the last copy queued for {@code slot} has completed (or none is queued); never waits. The slot is the
     * host's again only once {@linkplain #await awaited}, which then returns at once.
     */
    boolean done(int slot);

    /** Waits until every queued copy has completed. */
    void drain();

    /** Frees the slots and the queue; later calls do nothing. */
    @Override
    void close();

    /** Forgets the slots and the queue without touching the device: its context was destroyed. */
    void abandon();
}
