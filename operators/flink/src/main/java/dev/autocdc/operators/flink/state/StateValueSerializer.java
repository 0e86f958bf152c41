package dev.autocdc.operators.flink.state;

import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.StateCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The base of the engine's state serializers: one subclass per stored type, its byte layout written
 * in its Javadoc, over the value formats of {@link StateCodec} for the flow's column types. An
 * instance reads and writes one version of its layout: the current one, or an older one that a
 * restore reads once to migrate it ({@link Snapshot#restoreSerializer()}).
 *
 * <p>The snapshot records the column types, and its version is the layout's: Flink hands it back on
 * restore as {@code readVersion}. A restore with columns added after the old ones is migrated
 * (Flink reads each value with the old columns and writes it with the current ones, nulls in the
 * added columns: {@link StateCodec}); with other column types it is incompatible (the flow's
 * columns changed; {@code FlowShape} refuses it first, naming the change, in savepoints that keep
 * the shape); an older layout that a subclass still reads is migrated (Flink reads each value with
 * the old version and writes it with the current one); any other is incompatible. Savepoints of
 * builds that had one serializer class for all stored types carry {@link SingleSerializerSnapshot},
 * which each subclass maps to a version of its own.
 *
 * <p>A layout change: bump the subclass's current version, keep reading the previous one, and keep
 * the committed savepoints of {@code SavepointCompatibilityTest} restoring.
 */
public abstract class StateValueSerializer<T> extends TypeSerializer<T> {
    private static final long serialVersionUID = 1L;

    private final List<ColumnType> types;
    private final int version;
    private transient StateCodec codec;

    /** The largest scratch buffer kept between values (a few ordinary entries fit in it). */
    private static final int MAX_KEPT_SCRATCH = 64 * 1024;

    /** See {@link #scratch()}: the state that makes {@link #duplicate()} return a new instance. */
    private transient DataOutputSerializer scratch;

    StateValueSerializer(List<ColumnType> types, int version) {
        this.types = List.copyOf(types);
        this.version = version;
    }

    /** The layout version this instance reads and writes. */
    final int version() {
        return version;
    }

    final List<ColumnType> types() {
        return types;
    }

    final StateCodec codec() {
        if (codec == null) {
            codec = new StateCodec(types); // an idempotent fill: a race builds an equal codec
        }
        return codec;
    }

    /**
     * An empty buffer for a part of a value that is written behind its length (an entry of a
     * block), kept between calls so that writing a value allocates no buffer. One per instance:
     * Flink serializes on another thread (a heap backend's asynchronous snapshot) only through a
     * {@link #duplicate()}.
     */
    final DataOutputSerializer scratch() {
        scratch = emptied(scratch);
        return scratch;
    }

    /**
     * {@code kept} cleared for the next value, or a new small buffer when there is none or it grew
     * past {@value #MAX_KEPT_SCRATCH} bytes: a rare huge entry does not stay pinned. The rule of
     * every scratch buffer kept between state values.
     */
    public static DataOutputSerializer emptied(DataOutputSerializer kept) {
        if (kept == null || kept.getSharedBuffer().length > MAX_KEPT_SCRATCH) {
            return new DataOutputSerializer(64);
        }
        kept.clear();
        return kept;
    }

    abstract void write(T value, DataOutputView out) throws IOException;

    abstract T read(DataInputView in) throws IOException;

    /**
     * Reads a value stored when the flow had only its first {@code columns} columns (with this
     * serializer's layout version), and returns it with all of them, null in the added ones: for
     * hosts that check stored bytes themselves (the SQL functions' fingerprints).
     */
    @SuppressWarnings("unchecked")
    public final T readWithFirstColumns(int columns, DataInputView in) throws IOException {
        StateValueSerializer<T> narrow =
                ((Snapshot<T>) snapshotConfiguration())
                        .factory.create(types.subList(0, columns), version);
        DataOutputSerializer out = new DataOutputSerializer(64);
        write(narrow.read(in), out); // a shorter row is written with nulls after its end
        return read(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
    }

    @Override
    public final boolean isImmutableType() {
        return true; // the engine never mutates a state value it has read
    }

    @Override
    @SuppressWarnings("unchecked")
    public final TypeSerializer<T> duplicate() {
        // a new instance, for its own scratch buffer (the codec is a function of the types)
        return ((Snapshot<T>) snapshotConfiguration()).factory.create(types, version);
    }

    @Override
    public final T createInstance() {
        return null;
    }

    @Override
    public final T copy(T from) {
        return from;
    }

    @Override
    public final T copy(T from, T reuse) {
        return from;
    }

    @Override
    public final int getLength() {
        return -1;
    }

    @Override
    public final void serialize(T record, DataOutputView target) throws IOException {
        write(record, target);
    }

    @Override
    public final T deserialize(DataInputView source) throws IOException {
        return read(source);
    }

    @Override
    public final T deserialize(T reuse, DataInputView source) throws IOException {
        return read(source);
    }

    @Override
    public final void copy(DataInputView source, DataOutputView target) throws IOException {
        write(read(source), target);
    }

    @Override
    public final boolean equals(Object obj) {
        return obj != null
                && obj.getClass() == getClass()
                && ((StateValueSerializer<?>) obj).types.equals(types)
                && ((StateValueSerializer<?>) obj).version == version;
    }

    @Override
    public final int hashCode() {
        return Objects.hash(getClass(), types, version);
    }

    /** The serializer of a stored type at a layout version. */
    interface Factory<T> {
        StateValueSerializer<T> create(List<ColumnType> types, int version);
    }

    /**
     * The snapshot of a {@link StateValueSerializer}: the column types, as {@code count, then each
     * type's text (writeUTF)}; its version is the layout's.
     */
    public abstract static class Snapshot<T> implements TypeSerializerSnapshot<T> {
        private final int currentVersion;
        private final int oldestReadableVersion;
        private final Factory<T> factory;
        private final Map<String, Integer> legacyVersions;
        private int version;
        private List<ColumnType> types;

        /**
         * A stored type's snapshot; Flink restores it through the subclass's public no-argument
         * constructor, and {@link #readSnapshot} fills in the version and types.
         *
         * @param currentVersion the layout this build writes
         * @param oldestReadableVersion the oldest layout this build still reads (and migrates)
         * @param factory the serializer that reads and writes a layout version
         * @param legacyVersions the layout version that each content name of the pre-versioning
         *     snapshot ({@link SingleSerializerSnapshot}) wrote; a name not listed is refused
         */
        protected Snapshot(
                int currentVersion,
                int oldestReadableVersion,
                Factory<T> factory,
                Map<String, Integer> legacyVersions) {
            this.currentVersion = currentVersion;
            this.oldestReadableVersion = oldestReadableVersion;
            this.factory = factory;
            this.legacyVersions = legacyVersions;
        }

        /** Makes this snapshot describe {@code serializer} (its layout and column types). */
        final void describe(StateValueSerializer<T> serializer) {
            this.version = serializer.version;
            this.types = serializer.types;
        }

        /**
         * The layout of the serializer this snapshot describes (the current one, but in tests of a
         * migration).
         */
        @Override
        public final int getCurrentVersion() {
            return version > 0 ? version : currentVersion;
        }

        @Override
        public final void writeSnapshot(DataOutputView out) throws IOException {
            out.writeInt(types.size());
            for (ColumnType t : types) {
                out.writeUTF(t.toString());
            }
        }

        @Override
        public final void readSnapshot(
                int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
                throws IOException {
            version = readVersion;
            int n = in.readInt();
            types = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                types.add(ColumnType.parse(in.readUTF()));
            }
        }

        @Override
        public final TypeSerializer<T> restoreSerializer() {
            if (version < oldestReadableVersion || version > currentVersion) {
                throw new IllegalStateException(
                        "This build cannot read layout " + version + " of " + getClass().getName());
            }
            return factory.create(types, version);
        }

        @Override
        public final TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
                TypeSerializerSnapshot<T> old) {
            int oldVersion;
            List<ColumnType> oldTypes;
            if (old instanceof SingleSerializerSnapshot) {
                SingleSerializerSnapshot<T> legacy = (SingleSerializerSnapshot<T>) old;
                oldVersion =
                        legacy.format() == StateCodec.FORMAT_VERSION
                                ? legacyVersions.getOrDefault(legacy.content(), -1)
                                : -1;
                oldTypes = legacy.types();
            } else if (getClass().isInstance(old)) {
                oldVersion = ((Snapshot<T>) old).version;
                oldTypes = ((Snapshot<T>) old).types;
            } else {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            boolean same = oldTypes.equals(types);
            boolean added =
                    oldTypes.size() < types.size()
                            && types.subList(0, oldTypes.size()).equals(oldTypes);
            if (!(same || added)
                    || oldVersion < oldestReadableVersion
                    || oldVersion > currentVersion) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            return same && oldVersion == currentVersion
                    ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                    : TypeSerializerSchemaCompatibility.compatibleAfterMigration();
        }
    }
}
