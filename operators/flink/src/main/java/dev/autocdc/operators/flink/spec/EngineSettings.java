package dev.autocdc.operators.flink.spec;

import java.time.Duration;
import org.apache.flink.configuration.MemorySize;

/**
 * The settings of a flow that its engine applies besides the clauses (the job's {@code
 * autocdc.<flow>.*}): see {@link EngineSpec.Builder}'s setters of the same names for each one's
 * meaning and range, which {@link EngineSpec.Builder#build} checks.
 *
 * @param tombstoneRetention how long a deleted key is remembered; null: forever
 * @param historyRetention how long closed history stays in state; null: all of it
 * @param blockSize the history entries stored as one state value
 * @param stateCacheKeys the most keys of the write-back cache; 0: none; null: as many as its memory
 *     holds (none for a flow whose operator visits every key)
 * @param stateCacheMemory the heap the write-back cache may fill; null: from the task's memory
 * @param stateCacheShares the flows of the job whose caches share a slot's budget
 * @param snapshotHoldThreshold a flow from snapshots: the share of missing rows that holds a
 *     snapshot; null: never held
 */
public record EngineSettings(
        Duration tombstoneRetention,
        Duration historyRetention,
        int blockSize,
        Integer stateCacheKeys,
        MemorySize stateCacheMemory,
        int stateCacheShares,
        Double snapshotHoldThreshold) {

    /**
     * The settings of a host without timers (the SQL function {@code AUTO_CDC}): no retention, the
     * default block size, no cache, no hold.
     */
    public static EngineSettings withoutTimers() {
        return new EngineSettings(null, null, EngineSpec.DEFAULT_BLOCK_SIZE, 0, null, 1, null);
    }
}
