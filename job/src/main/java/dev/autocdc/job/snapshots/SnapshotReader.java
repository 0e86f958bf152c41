package dev.autocdc.job.snapshots;

import java.io.Serializable;

/**
 * What a {@link PolledSnapshotSource} asks at each poll: the whole next snapshot after the latest
 * one it emitted, or nothing when there is none yet. Called in the source's one reader task; a
 * snapshot's rows are emitted in one go, so that no checkpoint falls inside a snapshot (a restore
 * asks again from the latest snapshot before it).
 *
 * @param <T> the rows' type
 */
public interface SnapshotReader<T> extends Serializable {
    /** The version of a snapshot emitted, and its time in milliseconds (the watermark after it). */
    record Emitted(Serializable version, long time) {}

    /** Where a snapshot's rows go, each with its time in milliseconds (its version's). */
    @FunctionalInterface
    interface Rows<T> {
        void emit(T row, long time);
    }

    /** Called once in the reader's task before the first {@link #next}. */
    default void open(ClassLoader classLoader) throws Exception {}

    /**
     * Emits the rows of the next snapshot after {@code latest} into {@code rows}.
     *
     * @param latest the version of the latest snapshot emitted; null before the first
     * @return the snapshot's version and time; null when there is no new snapshot (then nothing was
     *     emitted)
     */
    Emitted next(Serializable latest, Rows<T> rows) throws Exception;

    /**
     * Whether to ask again at once after a snapshot (a function that may have several new ones),
     * rather than after the interval (a table read again, which always has a new one).
     */
    default boolean catchesUp() {
        return true;
    }

    default void close() throws Exception {}
}
