package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.ColumnType;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A bitemporal key's recent entries with its head, the value of {@value
 * StateNames#BITEMPORAL_RECENT} (see {@code FlinkBitemporalStore}). Versions count the bitemporal
 * layout (1 was the pre-release layout of every event in one map, which had no recent entries and
 * is never restored):
 *
 * <ul>
 *   <li>Layout 3: {@code bool(has head) [head] recent}: the head as {@link
 *       BitemporalHeadSerializer} writes it, then the recent entries of {@link
 *       RecentEntriesSerializer} layout 2 (with the chain keys).
 *   <li>Layout 2 (read to migrate it): {@code bool(has head) [head] block}: the recent entries
 *       without the chain keys.
 * </ul>
 */
public final class BitemporalRecentSerializer extends StateValueSerializer<TimelineBlock> {
    private static final long serialVersionUID = 1L;
    public static final int VERSION = 3;

    public BitemporalRecentSerializer(List<ColumnType> types, int version) {
        super(types, version);
    }

    @Override
    void write(TimelineBlock recent, DataOutputView out) throws IOException {
        BitemporalHead head = recent.head();
        out.writeBoolean(head != null);
        if (head != null) {
            codec().writeHead(head, out);
        }
        TimelineBlockSerializer.writeBlock(codec(), recent, out, scratch());
        if (version() >= 3) {
            RecentEntriesSerializer.writeChainKeys(recent, out);
        }
    }

    @Override
    TimelineBlock read(DataInputView in) throws IOException {
        String what = "the bitemporal recent entries";
        BitemporalHead head =
                in.readBoolean() ? BitemporalHeadSerializer.readHead(codec(), in, what) : null;
        TimelineBlock block = TimelineBlockSerializer.readBlock(codec(), in, what);
        if (version() >= 3) {
            block = RecentEntriesSerializer.readChainKeys(block, in, what);
        }
        return block.withHead(head);
    }

    @Override
    public Snapshot snapshotConfiguration() {
        Snapshot snapshot = new Snapshot();
        snapshot.describe(this);
        return snapshot;
    }

    /** The snapshot: the column types; version {@value #VERSION}, and 2 is read. */
    public static class Snapshot extends StateValueSerializer.Snapshot<TimelineBlock> {
        public Snapshot() {
            super(
                    VERSION,
                    2,
                    BitemporalRecentSerializer::new,
                    Map.of("BITEMPORAL_RECENT_ENTRIES", 3, "BITEMPORAL_RECENT", 2));
        }
    }
}
