package dev.autocdc.operators.flink.state;

import java.util.Set;

/**
 * The name of every state the engine's operators keep. Names are part of the savepoint format: a
 * state is found on restore by its name, so a name never changes, and a layout change keeps the
 * name and bumps its serializer's version (docs/state.md). Keyed state unless said otherwise;
 * {@link StateDescriptors} builds each state's descriptor.
 */
public final class StateNames {
    private StateNames() {}

    /** SCD1: the few events that still decide the key's row. */
    public static final String SCD1_EVENTS = "auto-cdc-scd1-decisive-events";

    /** SCD2: the newest timeline entries, the head last. */
    public static final String SCD2_RECENT = "auto-cdc-scd2-recent";

    /** SCD2: the older timeline entries, in blocks of consecutive entries, newest first. */
    public static final String SCD2_BLOCKS = "auto-cdc-scd2-blocks";

    /** Pre-release SCD2 layout, registered only so that restoring it fails. */
    public static final String LEGACY_SCD2_HEAD = "auto-cdc-scd2-head";

    /** Pre-release SCD2 layout, registered only so that restoring it fails. */
    public static final String LEGACY_SCD2_TIMELINE = "auto-cdc-scd2-timeline";

    /**
     * Bitemporal: the key's system-time facts for a key whose expired tombstone left no entries.
     */
    public static final String BITEMPORAL_HEAD = "auto-cdc-bitemporal-head";

    /**
     * Bitemporal: the newest entries of the current belief's timeline (every event included) and
     * the key's system-time facts.
     */
    public static final String BITEMPORAL_RECENT = "auto-cdc-bitemporal-recent";

    /**
     * Bitemporal: the older entries of the current belief, in blocks; the entry where a closed
     * version ends records when its believed row starts in system time.
     */
    public static final String BITEMPORAL_BLOCKS = "auto-cdc-bitemporal-blocks";

    /**
     * Pre-release bitemporal layout (every event in one map), registered only so that restoring it
     * fails.
     */
    public static final String LEGACY_BITEMPORAL_EVENTS = "auto-cdc-bitemporal-events";

    /** Bitemporal: the beliefs kept once the history retention dropped history. */
    public static final String BITEMPORAL_SNAPSHOT = "auto-cdc-bitemporal-snapshot";

    /** When a deleted key is forgotten (processing time, semantics §7). */
    public static final String TOMBSTONE_EXPIRY = "auto-cdc-tombstone-expiry";

    /**
     * SCD2: the oldest sequence still held, after a history retention pass or a tombstone expiry
     * (the bitemporal head carries both floors of its key instead).
     */
    public static final String HISTORY_FLOOR = "auto-cdc-history-floor";

    /** SCD2 and bitemporal: the pending pruning timer. */
    public static final String HISTORY_PRUNE_AT = "auto-cdc-history-prune-at";

    /**
     * Operator state (union list): the flow's shape when the state was written, checked on restore.
     */
    public static final String FLOW_SHAPE = "auto-cdc-flow-shape";

    /**
     * Broadcast state of a flow with truncates: the floor truncate (as a one-event list) under
     * "events".
     */
    public static final String TRUNCATE_FLOOR = "auto-cdc-truncate-floor";

    /** Broadcast state of a flow with truncates: the floor truncate's arrival time. */
    public static final String TRUNCATE_FLOOR_ARRIVAL = TRUNCATE_FLOOR + "-arrival";

    /** A flow from snapshots: a key's rows of snapshots not yet complete. */
    public static final String SNAPSHOT_PENDING = "auto-cdc-snapshot-pending";

    /**
     * A flow from snapshots (broadcast state): the complete snapshots and their marks, and the held
     * ones' marks (their held flag set).
     */
    public static final String SNAPSHOTS_COMPLETE = "auto-cdc-snapshots-complete";

    /** A flow from snapshots: the snapshot a key last applied and whether the key is present. */
    public static final String SNAPSHOT_APPLIED = "auto-cdc-snapshot-applied";

    /** A flow from snapshots (operator state): the snapshots counted and not yet announced. */
    public static final String SNAPSHOTS_COUNTING = "auto-cdc-snapshots-counting";

    /** A flow from snapshots (operator state): the marks announced and not yet complete. */
    public static final String SNAPSHOTS_WAITING = "auto-cdc-snapshots-waiting";

    /**
     * A flow from snapshots (operator state): the rows of the last complete snapshot (for the
     * safety valve).
     */
    public static final String SNAPSHOTS_LAST_ROWS = "auto-cdc-snapshots-last-rows";

    /** A flow from snapshots (operator state): the snapshots every key was scanned through. */
    public static final String SNAPSHOTS_SCANNED = "auto-cdc-snapshots-scanned";

    /**
     * The states every event of a key reads and writes, which the write-back cache keeps: SCD1's
     * decisive events, the recent entries of SCD2 and bitemporal histories, a key's progress
     * through the snapshots (its waiting rows are cached too, as one value per key: {@code
     * SnapshotPendingRows}).
     */
    public static final Set<String> CACHED_STATES =
            Set.of(SCD1_EVENTS, SCD2_RECENT, BITEMPORAL_RECENT, SNAPSHOT_APPLIED);
}
