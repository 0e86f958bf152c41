package dev.autocdc.operators.core;

/**
 * The store of one key's bitemporal history. The rows themselves are not stored: they are a
 * function of the events (and, once the history retention dropped some history, of the {@link
 * BitemporalSnapshot}). What is stored is what lets an event in system order cost as much as an
 * SCD2 event:
 *
 * <ul>
 *   <li>the current belief: the SCD2 {@link Timeline} of every event of the key (every event at a
 *       business sequence is kept, since past beliefs need them), with the state after each
 *       sequence;
 *   <li>for each closed version of the current belief, the system time its believed row starts at,
 *       on the entry where it ends ({@link TimelineEntry#believedSince()}); the open version's is
 *       in the {@link BitemporalHead};
 *   <li>the {@link BitemporalHead} and the snapshot.
 * </ul>
 */
public interface BitemporalStore {

    /** The current belief; its entries hold every event of the key. */
    Timeline belief();

    /** The key's system-time facts; null for a key never seen. */
    BitemporalHead head();

    void setHead(BitemporalHead head);

    /**
     * Drops the belief's entries before {@code floor} (history retention; the floor is at or before
     * the head).
     */
    void removeBefore(byte[] floor);

    /** What the history retention kept of the dropped history; null when nothing was dropped. */
    BitemporalSnapshot snapshot();

    void setSnapshot(BitemporalSnapshot snapshot);
}
