package dev.autocdc.operators.core;

import java.util.Collection;
import java.util.List;

/**
 * What an SCD2 event after the key's head does to its versions (semantics §4), as {@link
 * Scd2Engine}'s in-order path tells it: as version changes ({@link Scd2Engine#applyVersions}, which
 * the bitemporal engine builds on) or as target rows ({@link Scd2Engine#apply}, without version
 * objects between), so that the rule is written once.
 */
interface Appended {
    /** The open version [start, -) with {@code row} closes at {@code end}. */
    void closed(byte[] start, Object[] row, byte[] end);

    /** The open version [start, -) keeps its start; its row changes (untracked columns). */
    void rewritten(byte[] start, Object[] before, Object[] after);

    /** A version [start, -) with {@code row} opens. */
    void opened(byte[] start, Object[] row);

    /** {@link Appended} as version changes. */
    final class VersionChanges implements Appended {
        private final Collection<VersionChange> out;

        VersionChanges(Collection<VersionChange> out) {
            this.out = out;
        }

        @Override
        public void closed(byte[] start, Object[] row, byte[] end) {
            Version open = new Version(start, null, row);
            out.add(new VersionChange(open, open.withEnd(end)));
        }

        @Override
        public void rewritten(byte[] start, Object[] before, Object[] after) {
            out.add(
                    new VersionChange(
                            new Version(start, null, before), new Version(start, null, after)));
        }

        @Override
        public void opened(byte[] start, Object[] row) {
            out.add(new VersionChange(null, new Version(start, null, row)));
        }
    }

    /**
     * {@link Appended} as target rows, the rows {@link VersionChange#toTargetChange} makes; a
     * sequence the event's rows share (the closed version's end is the opened one's start) is
     * decoded once. One per engine, pointed at the event's list by {@link #into}.
     */
    final class TargetRows implements Appended {
        private final SequenceCodec codec;
        private List<TargetChange> out;
        private byte[] decodedBytes;
        private Object decoded;

        TargetRows(SequenceCodec codec) {
            this.codec = codec;
        }

        TargetRows into(List<TargetChange> changes) {
            out = changes;
            decodedBytes = null;
            decoded = null;
            return this;
        }

        private Object decode(byte[] sequence) {
            if (sequence != decodedBytes) {
                decoded = codec.decode(sequence);
                decodedBytes = sequence;
            }
            return decoded;
        }

        @Override
        public void closed(byte[] start, Object[] row, byte[] end) {
            Object s = decode(start);
            Object e = codec.decode(end);
            out.add(
                    TargetChange.update(
                            Version.targetRow(row, s, null), Version.targetRow(row, s, e)));
            decodedBytes = end;
            decoded = e;
        }

        @Override
        public void rewritten(byte[] start, Object[] before, Object[] after) {
            Object s = decode(start);
            out.add(
                    TargetChange.update(
                            Version.targetRow(before, s, null), Version.targetRow(after, s, null)));
        }

        @Override
        public void opened(byte[] start, Object[] row) {
            out.add(TargetChange.insert(Version.targetRow(row, decode(start), null)));
        }
    }
}
