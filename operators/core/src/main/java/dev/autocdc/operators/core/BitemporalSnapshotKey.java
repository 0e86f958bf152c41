package dev.autocdc.operators.core;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * One key of a bitemporal flow from snapshots (semantics §10) across the snapshots it has applied:
 * the events each complete snapshot stands for, written lazily but exactly.
 *
 * <p>semantics §10 makes a snapshot an upsert of each of its rows and a delete of every key it
 * lacks, at its version and system sequence. A delete where the key is absent changes no belief
 * when it is applied, so writing it for every absent key at every snapshot would cost a visit per
 * key ever seen. It only comes to matter when a later snapshot restates an older version with the
 * key: the key's event at the next version (the first greater version where it has one) must then
 * close it. So this class writes a delete only where the key is present, and, when it upserts the
 * key at a version whose next version holds a delete not yet written, writes that delete first, at
 * the sequences of the snapshot it belongs to. A delete written late changes no earlier belief (the
 * key was absent there in every belief since), so every belief equals the one all the deletes make.
 * The rule needs, per key:
 *
 * <ul>
 *   <li>its {@link KeyPresence} in the newest belief;
 *   <li>the snapshots where its rows were held (duplicates, or a row refused on arrival): they give
 *       it no event, so they are no "next version" for it;
 *   <li>the versions whose newest event written is a delete, so that no delete is written twice.
 * </ul>
 *
 * <p>Snapshots must be applied in id order and be in the {@link SnapshotIndex} passed. Not
 * thread-safe; the lists returned for serializing are copies.
 */
public final class BitemporalSnapshotKey {

    /** What the key has in a snapshot. */
    public enum Rows {
        /** a row (rows equal on the target's columns count as one) */
        UPSERT,
        /** rows that hold the key as it was */
        HELD,
        /** no row */
        NONE
    }

    /**
     * An event to write: an upsert of the key's row in the snapshot applied, or a delete at the
     * sequences of snapshot {@code at}.
     */
    public record Write(boolean delete, byte[] at) {}

    /** Writes events to the target; a write can be refused. */
    public interface Writer {
        /**
         * Writes the event; false when the target refused it (it lies before the history the key
         * retains: a tombstone or history retention dropped that history).
         */
        boolean write(Write write) throws Exception;
    }

    private final KeyPresence presence;
    private final TreeSet<byte[]> held = new TreeSet<>(SnapshotId::compare);
    private final TreeSet<byte[]> deleted = new TreeSet<>(SequenceCodec::compare);

    private BitemporalSnapshotKey(KeyPresence presence, List<byte[]> held, List<byte[]> deleted) {
        this.presence = presence;
        this.held.addAll(held);
        this.deleted.addAll(deleted);
    }

    /** A key that has applied no snapshot. */
    public static BitemporalSnapshotKey initial() {
        return new BitemporalSnapshotKey(KeyPresence.absent(), List.of(), List.of());
    }

    /**
     * A key as {@link #presencePoints()}, {@link #heldIds()} and {@link #deletedVersions()} gave
     * it.
     */
    public static BitemporalSnapshotKey of(
            List<byte[]> presencePoints, List<byte[]> heldIds, List<byte[]> deletedVersions) {
        return new BitemporalSnapshotKey(KeyPresence.of(presencePoints), heldIds, deletedVersions);
    }

    /**
     * Applies one complete snapshot to the key: writes the events it stands for, in order (none,
     * one, or a late delete then the upsert), and records what was written. Returns false when the
     * target refused a write: the key's history that the write needed left state, so the snapshot
     * changes nothing for the key (and a refused late delete is not followed by its upsert, which
     * would stay open past the version that closes it).
     */
    public boolean apply(byte[] id, Rows rows, SnapshotIndex index, Writer writer)
            throws Exception {
        byte[] version = index.version(id);
        switch (rows) {
            case HELD -> {
                held.add(id);
                return true;
            }
            case NONE -> {
                if (!presence.at(version)) {
                    return true; // skipped: it changes no belief (yet)
                }
                if (!writer.write(new Write(true, id))) {
                    return false;
                }
                presence.set(version, nextVersion(version, id, index), false);
                deleted.add(version);
                return true;
            }
            default -> {
                byte[] next = index.successor(version, id, held);
                byte[] until = next == null ? null : index.version(next);
                if (until != null && !presence.at(until) && !deleted.contains(until)) {
                    // the skipped delete now closes the key
                    if (!writer.write(new Write(true, next))) {
                        return false;
                    }
                    deleted.add(until);
                }
                if (!writer.write(new Write(false, id))) {
                    return false;
                }
                deleted.remove(version);
                presence.set(version, until, true);
                return true;
            }
        }
    }

    private byte[] nextVersion(byte[] version, byte[] id, SnapshotIndex index) {
        byte[] next = index.successor(version, id, held);
        return next == null ? null : index.version(next);
    }

    /** Whether the key is present at the version, in the newest belief. */
    public boolean presentAt(byte[] version) {
        return presence.at(version);
    }

    /** Whether the key is present at every version after the last it changed at. */
    public boolean presentAtEnd() {
        return presence.atEnd();
    }

    /** Whether the key is present at some version (else a snapshot without it changes nothing). */
    public boolean everPresent() {
        return presence.ever();
    }

    public List<byte[]> presencePoints() {
        return new ArrayList<>(presence.points());
    }

    public List<byte[]> heldIds() {
        return new ArrayList<>(held);
    }

    public List<byte[]> deletedVersions() {
        return new ArrayList<>(deleted);
    }
}
