package dev.autocdc.operators.core;

import java.util.Arrays;
import java.util.List;

/**
 * {@link Appended} as bitemporal rows (semantics §5), for the bitemporal engine's common event:
 * after the belief's newest sequence and in system order. Each version the SCD2 step changes is one
 * row transition at the event's system time t:
 *
 * <ul>
 *   <li>closed: the open version's believed row (believed since the head's open system start)
 *       closes at t and the closed version is believed from t; when the row was believed from t
 *       itself, it never was, and the closed version replaces it;
 *   <li>rewritten: the believed row's untracked columns change in place;
 *   <li>opened: the new version is believed from t.
 * </ul>
 *
 * <p>The rows and their order are those of {@link BitemporalEngine}'s general path (version changes
 * paired with their believed rows) for the same event, built without version or row objects between
 * and with each sequence decoded once. After the event, {@link #openSince()} is the open version's
 * system start. One per engine, reset for each event by {@link #into}.
 */
final class BitemporalAppended implements Appended {
    private final SequenceCodec business;
    private final SequenceCodec system;

    private List<TargetChange> out;
    private byte[] t;
    private Object tDecoded;

    /** The head's open system start before the event (the believed row of the open version). */
    private byte[] believedSince;

    private Object believedSinceDecoded;
    private byte[] openSince;

    /** The business sequence decoded last, with its bytes (the closed end is the opened start). */
    private byte[] decodedBytes;

    private Object decoded;

    BitemporalAppended(SequenceCodec business, SequenceCodec system) {
        this.business = business;
        this.system = system;
    }

    /**
     * Points this at an event's changes: its system sequence {@code t} and the head's open system
     * start before it (null: no version is open, or the key is new).
     */
    BitemporalAppended into(List<TargetChange> changes, byte[] t, byte[] openSystemStart) {
        out = changes;
        this.t = t;
        tDecoded = null;
        believedSince = openSystemStart;
        believedSinceDecoded = null;
        openSince = openSystemStart;
        decodedBytes = null;
        decoded = null;
        return this;
    }

    /** The open version's system start after the event; null when no version is open. */
    byte[] openSince() {
        return openSince;
    }

    @Override
    public void closed(byte[] start, Object[] row, byte[] end) {
        Object s = decode(start);
        Object since = since();
        Object e = business.decode(end);
        decodedBytes = end;
        decoded = e;
        boolean believedFromT = Arrays.equals(believedSince, t);
        BitemporalRow.transition(
                out,
                BitemporalRow.targetRow(row, s, null, since, null),
                believedFromT,
                believedFromT ? null : BitemporalRow.targetRow(row, s, null, since, t()),
                BitemporalRow.targetRow(row, s, e, t(), null));
        openSince = null;
    }

    @Override
    public void rewritten(byte[] start, Object[] before, Object[] after) {
        Object s = decode(start);
        Object since = since();
        out.add(
                TargetChange.update(
                        BitemporalRow.targetRow(before, s, null, since, null),
                        BitemporalRow.targetRow(after, s, null, since, null)));
    }

    @Override
    public void opened(byte[] start, Object[] row) {
        BitemporalRow.transition(
                out,
                null,
                false,
                null,
                BitemporalRow.targetRow(row, decode(start), null, t(), null));
        openSince = t;
    }

    /** A believed row without its system start: the key's state is inconsistent. */
    static IllegalStateException noSystemStart() {
        return new IllegalStateException(
                "The key's state has no system start for a believed version");
    }

    private Object decode(byte[] sequence) {
        if (sequence != decodedBytes) {
            decoded = business.decode(sequence);
            decodedBytes = sequence;
        }
        return decoded;
    }

    private Object t() {
        if (tDecoded == null) {
            tDecoded = system.decode(t);
        }
        return tDecoded;
    }

    /** The open version's believed row's system start, decoded; it must exist. */
    private Object since() {
        if (believedSince == null) {
            throw noSystemStart();
        }
        if (believedSinceDecoded == null) {
            believedSinceDecoded = system.decode(believedSince);
        }
        return believedSinceDecoded;
    }
}
