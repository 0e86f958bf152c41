package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TimelineEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The explicit, versioned serializer of the engine's state values, a thin wrapper over
 * {@link StateCodec}. Its snapshot records what it stores and the flow's column types: restoring with
 * the same types is compatible as is; other types are incompatible (the flow's columns changed: start
 * without state, or migrate).
 */
public final class StateSerializer<T> extends TypeSerializer<T> {
    private static final long serialVersionUID = 1L;

    /**
     * What a serializer writes. {@code BITEMPORAL_HEAD} is the pre-release bitemporal head (with the belief's
     * state), kept as a name only so that restoring it is refused; {@code BITEMPORAL_SYSTEM_HEAD} is today's.
     * The recent entries were written as {@code TIMELINE_BLOCK} (SCD2) and {@code BITEMPORAL_RECENT} before
     * they kept the keys of the newest blocks; those are read once more on restore, to migrate them to
     * {@code RECENT_ENTRIES} and {@code BITEMPORAL_RECENT_ENTRIES}.
     */
    public enum Content { DECISIVE_EVENTS, TIMELINE_ENTRY, BITEMPORAL_HEAD, BITEMPORAL_SNAPSHOT, TIMELINE_BLOCK, BITEMPORAL_SYSTEM_HEAD,
        BITEMPORAL_RECENT, RECENT_ENTRIES, BITEMPORAL_RECENT_ENTRIES }

    private final Content content;
    private final List<ColumnType> types;
    private transient StateCodec codec;

    private StateSerializer(Content content, List<ColumnType> types) {
        this.content = content;
        this.types = List.copyOf(types);
    }

    public static StateSerializer<List<ChangeEvent>> decisiveEvents(List<ColumnType> types) {
        return new StateSerializer<>(Content.DECISIVE_EVENTS, types);
    }

    public static StateSerializer<TimelineEntry> timelineEntry(List<ColumnType> types) {
        return new StateSerializer<>(Content.TIMELINE_ENTRY, types);
    }

    /** Consecutive SCD2 timeline entries of a key (see {@link FlinkTimeline}). */
    public static StateSerializer<TimelineBlock> timelineBlock(List<ColumnType> types) {
        return new StateSerializer<>(Content.TIMELINE_BLOCK, types);
    }

    /** The layout of the recent entries: 2 keeps the keys of the newest blocks, 1 (read on restore, to migrate it) did not. */
    static final int RECENT_LAYOUT = 2;

    /**
     * The recent entries of an SCD2 timeline, with the keys of its newest blocks (see {@link FlinkTimeline});
     * of a bitemporal belief, with the key's head ({@link TimelineBlock#head()}) too. Layout 1 is written only
     * by tests of the migration.
     */
    static StateSerializer<TimelineBlock> recentEntries(boolean bitemporal, List<ColumnType> types, int layout) {
        if (layout == RECENT_LAYOUT) {
            return new StateSerializer<>(bitemporal ? Content.BITEMPORAL_RECENT_ENTRIES : Content.RECENT_ENTRIES, types);
        }
        return new StateSerializer<>(bitemporal ? Content.BITEMPORAL_RECENT : Content.TIMELINE_BLOCK, types);
    }

    public static StateSerializer<BitemporalHead> bitemporalHead(List<ColumnType> types) {
        return new StateSerializer<>(Content.BITEMPORAL_SYSTEM_HEAD, types);
    }

    public static StateSerializer<dev.autocdc.operators.core.BitemporalSnapshot> bitemporalSnapshot(List<ColumnType> types) {
        return new StateSerializer<>(Content.BITEMPORAL_SNAPSHOT, types);
    }

    private StateCodec codec() {
        if (codec == null) {
            codec = new StateCodec(types);
        }
        return codec;
    }

    @Override
    public boolean isImmutableType() {
        return true; // the engine never mutates state values it has read
    }

    @Override
    public TypeSerializer<T> duplicate() {
        return new StateSerializer<>(content, types);
    }

    @Override
    public T createInstance() {
        return null;
    }

    @Override
    public T copy(T from) {
        return from;
    }

    @Override
    public T copy(T from, T reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void serialize(T record, DataOutputView target) throws IOException {
        switch (content) {
            case DECISIVE_EVENTS:
                codec().writeEvents((List<ChangeEvent>) record, target);
                break;
            case TIMELINE_ENTRY:
                codec().writeEntry((TimelineEntry) record, target);
                break;
            case BITEMPORAL_SNAPSHOT:
                codec().writeSnapshot((dev.autocdc.operators.core.BitemporalSnapshot) record, target);
                break;
            case TIMELINE_BLOCK:
                ((TimelineBlock) record).write(target);
                break;
            case RECENT_ENTRIES:
                ((TimelineBlock) record).writeRecent(target);
                break;
            case BITEMPORAL_RECENT_ENTRIES:
                ((TimelineBlock) record).writeWithHead(target);
                break;
            case BITEMPORAL_RECENT: // the layout before the chain keys: a recent value with only its older link is valid
                ((TimelineBlock) record).writeWithHeadWithoutChainKeys(target);
                break;
            case BITEMPORAL_SYSTEM_HEAD:
                codec().writeHead((BitemporalHead) record, target);
                break;
            default:
                throw new IOException("The pre-release bitemporal head is not written any more");
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public T deserialize(DataInputView source) throws IOException {
        switch (content) {
            case DECISIVE_EVENTS:
                return (T) codec().readEvents(source);
            case TIMELINE_ENTRY:
                return (T) codec().readEntry(source);
            case BITEMPORAL_SNAPSHOT:
                return (T) codec().readSnapshot(source);
            case TIMELINE_BLOCK:
                return (T) TimelineBlock.read(codec(), source);
            case RECENT_ENTRIES:
                return (T) TimelineBlock.readRecent(codec(), source);
            case BITEMPORAL_RECENT_ENTRIES:
                return (T) TimelineBlock.readWithHead(codec(), source);
            case BITEMPORAL_RECENT:
                return (T) TimelineBlock.readWithHeadWithoutChainKeys(codec(), source);
            case BITEMPORAL_SYSTEM_HEAD:
                return (T) codec().readHead(source);
            default:
                throw new IOException("The pre-release bitemporal head cannot be read: restore from a savepoint of this build");
        }
    }

    @Override
    public T deserialize(T reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof StateSerializer && ((StateSerializer<?>) obj).content == content
                && ((StateSerializer<?>) obj).types.equals(types);
    }

    @Override
    public int hashCode() {
        return Objects.hash(content, types);
    }

    @Override
    public TypeSerializerSnapshot<T> snapshotConfiguration() {
        return new Snapshot<>(content, types);
    }

    /** Records the content kind, the codec's format version and the column types. */
    public static final class Snapshot<T> implements TypeSerializerSnapshot<T> {
        private Content content;
        private List<ColumnType> types;
        private int format = StateCodec.FORMAT_VERSION;

        /** For Flink's reflective restore. */
        public Snapshot() {
        }

        Snapshot(Content content, List<ColumnType> types) {
            this.content = content;
            this.types = types;
        }

        @Override
        public int getCurrentVersion() {
            return 1;
        }

        @Override
        public void writeSnapshot(DataOutputView out) throws IOException {
            out.writeUTF(content.name());
            out.writeInt(StateCodec.FORMAT_VERSION);
            out.writeInt(types.size());
            for (ColumnType t : types) {
                out.writeUTF(t.toString());
            }
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader) throws IOException {
            content = Content.valueOf(in.readUTF());
            format = in.readInt();
            int n = in.readInt();
            types = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                types.add(ColumnType.parse(in.readUTF()));
            }
        }

        @Override
        public TypeSerializer<T> restoreSerializer() {
            return new StateSerializer<>(content, types);
        }

        @Override
        public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> oldSnapshot) {
            if (!(oldSnapshot instanceof Snapshot)) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            Snapshot<T> old = (Snapshot<T>) oldSnapshot;
            if (!old.types.equals(types) || old.format != format) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            if (old.content == content) {
                return TypeSerializerSchemaCompatibility.compatibleAsIs();
            }
            // recent entries written before they kept the keys of the newest blocks: Flink reads them with the
            // old serializer and writes them with this one (they then know only their next older block)
            if (old.content == Content.TIMELINE_BLOCK && content == Content.RECENT_ENTRIES
                    || old.content == Content.BITEMPORAL_RECENT && content == Content.BITEMPORAL_RECENT_ENTRIES) {
                return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
            }
            return TypeSerializerSchemaCompatibility.incompatible();
        }
    }
}
