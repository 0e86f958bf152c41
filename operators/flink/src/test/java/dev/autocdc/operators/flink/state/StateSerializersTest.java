package dev.autocdc.operators.flink.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.BitemporalHead;
import dev.autocdc.operators.core.BitemporalRow;
import dev.autocdc.operators.core.BitemporalSnapshot;
import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.Op;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.core.TimelineEntry;
import dev.autocdc.operators.core.Version;
import dev.autocdc.operators.flink.targets.FlinkTimeline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Each stored type's byte layout, one nested class per format: the bytes of a small value typed by
 * hand from the layout in the serializer's Javadoc, a round trip, the previous layout read, and a
 * corrupt value refused with a message that says what and where. Then the snapshots: their
 * versions, the migrations they allow, and the snapshots of builds that had one serializer class
 * for every type.
 */
class StateSerializersTest {

    /** An INT key and a STRING value. */
    static final List<ColumnType> TYPES =
            List.of(ColumnType.of(ColumnType.Kind.INT), ColumnType.of(ColumnType.Kind.STRING));

    /** An INT sequence as SequenceCodec encodes it: the sign bit flipped, big-endian. */
    static byte[] seq(int v) {
        return new byte[] {
            (byte) ((v >>> 24) ^ 0x80), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v
        };
    }

    /** One upsert of [1, "a"] at sequence {@code s}, as the only event of its entry. */
    static TimelineEntry entry(int s) {
        ChangeEvent e = new ChangeEvent(Op.UPSERT, new Object[] {1, "a"}, seq(s), null, null);
        return new TimelineEntry(seq(s), List.of(e), e.row(), seq(s));
    }

    /**
     * The bytes of {@link #entry}(1): 05 80000001 (sequence), 01 (one event), 04 (upsert, same
     * sequence), 00 (no nulls) 02 (INT 1, zigzag) 02 61 ("a"), 05 (state: the event's row; start:
     * the own sequence), 00 (written at 0).
     */
    static final String ENTRY_1 = "0580000001" + "01" + "04" + "00" + "02" + "0261" + "05" + "00";

    static <T> byte[] bytes(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    static <T> T read(TypeSerializer<T> serializer, byte[] bytes) throws IOException {
        return serializer.deserialize(new DataInputDeserializer(bytes));
    }

    static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex);
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Nested
    class TimelineBlocks {
        private final TimelineBlockSerializer serializer = new TimelineBlockSerializer(TYPES);

        @Test
        void aBlockIsItsOlderLinkThenItsEntriesBehindTheirLengths() throws IOException {
            TimelineBlock block = TimelineBlock.of(new StateCodec(TYPES), entry(1));
            // 00 (no older block), 01 (one entry), 0d (13 bytes), the entry
            assertThat(hex(bytes(serializer, block))).isEqualTo("00" + "01" + "0d" + ENTRY_1);
            TimelineBlock linked = block.with(entry(2)).withOlder(seq(0));
            byte[] stored = bytes(serializer, linked);
            assertThat(hex(stored)).startsWith("0580000000" + "02" + "0d" + ENTRY_1 + "0d");
            TimelineBlock back = read(serializer, stored);
            assertThat(back.size()).isEqualTo(2);
            assertThat(back.older()).isEqualTo(seq(0));
            assertThat(back.entry(1).sequence()).isEqualTo(seq(2));
            assertThat(back.entry(1).state()).containsExactly(1, "a");
            assertThat(bytes(serializer, back))
                    .as("an unread entry is written back as the same bytes")
                    .isEqualTo(stored);
        }

        @Test
        void aCorruptBlockIsRefusedSayingWhere() {
            assertThatThrownBy(() -> read(serializer, hex("0580000009" + "00")))
                    .isInstanceOf(CorruptStateException.class)
                    .hasMessageContaining("after sequence 0x80000009 holds 0 entries");
            String whole = "0580000009" + "01" + "0d" + ENTRY_1;
            assertThatThrownBy(() -> read(serializer, hex(whole.substring(0, whole.length() - 4))))
                    .isInstanceOf(CorruptStateException.class)
                    .hasMessageContaining("after sequence 0x80000009 ends early, in entry 1 of 1");
        }

        @Test
        void anEntryThatDoesNotDecodeIsRefusedWhenReadSayingWhichAndWhere() throws IOException {
            TimelineBlock block = read(serializer, hex("0580000009" + "01" + "03" + "ffffff"));
            assertThatThrownBy(() -> block.entry(0))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(CorruptStateException.class)
                    .hasMessageContaining(
                            "entry 1 of 1 of a block after sequence 0x80000009 does not decode");
        }
    }

    @Nested
    class RecentEntries {
        private final TimelineBlock recent =
                TimelineBlock.of(new StateCodec(TYPES), entry(1))
                        .withChainKeys(List.of(seq(-1), seq(-5), seq(-300)));

        @Test
        void theChainKeysFollowTheBlockPrefixCoded() throws IOException {
            byte[] stored = bytes(new RecentEntriesSerializer(TYPES, 2), recent);
            // the block (older link 0x7fffffff), then 02 further keys: 0x7ffffffb shares 3 bytes
            // (03, rest: 02 fb, one byte), 0x7ffffed4 shares 2 with it (02, rest: 03 fe d4, two
            // bytes)
            assertThat(hex(stored))
                    .isEqualTo(
                            "057fffffff"
                                    + "01"
                                    + "0d"
                                    + ENTRY_1
                                    + "02"
                                    + "03"
                                    + "02fb"
                                    + "02"
                                    + "03fed4");
            TimelineBlock back = read(new RecentEntriesSerializer(TYPES, 2), stored);
            assertThat(back.chainKeys()).containsExactly(seq(-1), seq(-5), seq(-300));
        }

        /**
         * When the older recent entries move into blocks, the newest stays alone, linked to the
         * keys written (newest first), then to the chain it knew, at most {@link
         * FlinkTimeline#CHAIN_KEYS} keys.
         */
        @Test
        void theNewestEntryStaysLinkedToTheWrittenBlocksThenTheKnownChain() {
            StateCodec codec = new StateCodec(TYPES);
            TimelineBlock two = TimelineBlock.of(codec, entry(1)).with(entry(2));
            TimelineBlock known = two.withChainKeys(List.of(seq(-1), seq(-5)));

            TimelineBlock linked = known.newestLinkedTo(List.of(seq(-9)));
            assertThat(linked.size()).isEqualTo(1);
            assertThat(linked.entry(0).sequence()).isEqualTo(seq(2));
            assertThat(linked.chainKeys()).containsExactly(seq(-9), seq(-1), seq(-5));
            // no chain known: the written key alone
            assertThat(two.newestLinkedTo(List.of(seq(-9))).chainKeys()).containsExactly(seq(-9));
            // a split into more blocks than the chain keeps: the newest written keys only
            assertThat(
                            known.newestLinkedTo(
                                            List.of(
                                                    seq(-20), seq(-21), seq(-22), seq(-23),
                                                    seq(-24)))
                                    .chainKeys())
                    .containsExactly(seq(-20), seq(-21), seq(-22), seq(-23));
            // written keys then known ones, cut at the limit
            assertThat(known.newestLinkedTo(List.of(seq(-20), seq(-21), seq(-22))).chainKeys())
                    .containsExactly(seq(-20), seq(-21), seq(-22), seq(-1));
        }

        /**
         * A serializer keeps a scratch buffer for the entries it encodes, so Flink's duplicate (for
         * the heap backend's asynchronous snapshot thread) is a new, equal instance that writes the
         * same bytes, also while the original is between two values.
         */
        @Test
        void aDuplicateIsANewEqualSerializerThatWritesTheSameBytes() throws IOException {
            RecentEntriesSerializer original = new RecentEntriesSerializer(TYPES, 2);
            TypeSerializer<TimelineBlock> copy = original.duplicate();
            assertThat(copy).isNotSameAs(original).isEqualTo(original);
            TimelineBlock fresh =
                    TimelineBlock.of(new StateCodec(TYPES), entry(1))
                            .withChainKeys(List.of(seq(-1)));
            byte[] once = bytes(original, fresh);
            assertThat(bytes(copy, fresh)).isEqualTo(once);
            assertThat(bytes(original, fresh)).isEqualTo(once); // the scratch is cleared per entry
        }

        /**
         * Every scratch buffer kept between state values (the serializers', the timeline's for the
         * blocks it puts) is emptied for the next value, and dropped once a huge entry grew it past
         * 64 KiB, so that one such entry does not pin its size for the operator's life.
         */
        @Test
        void aScratchBufferIsKeptEmptiedUnlessAHugeEntryGrewIt() throws IOException {
            DataOutputSerializer first = StateValueSerializer.emptied(null);
            first.write(new byte[100]);
            DataOutputSerializer again = StateValueSerializer.emptied(first);
            assertThat(again).isSameAs(first);
            assertThat(again.length()).isZero();
            again.write(new byte[64 * 1024 + 1]);
            DataOutputSerializer afterHuge = StateValueSerializer.emptied(again);
            assertThat(afterHuge).isNotSameAs(again);
            assertThat(afterHuge.length()).isZero();
            assertThat(afterHuge.getSharedBuffer().length).isLessThanOrEqualTo(64 * 1024);
        }

        @Test
        void layoutOneIsTheBlockAloneAndReadsWithItsNextOlderBlockOnly() throws IOException {
            RecentEntriesSerializer previous = new RecentEntriesSerializer(TYPES, 1);
            byte[] stored = bytes(previous, recent);
            assertThat(hex(stored)).isEqualTo("057fffffff" + "01" + "0d" + ENTRY_1);
            TimelineBlock back = read(previous, stored);
            assertThat(back.chainKeys()).containsExactly(seq(-1));
            assertThat(back.entry(0).sequence()).isEqualTo(seq(1));
        }

        @Test
        void tooManyChainKeysAreRefused() {
            assertThatThrownBy(
                            () ->
                                    read(
                                            new RecentEntriesSerializer(TYPES, 2),
                                            hex("057fffffff" + "01" + "0d" + ENTRY_1 + "05")))
                    .isInstanceOf(CorruptStateException.class)
                    .hasMessageContaining(
                            "after sequence 0x7fffffff: 5 further chain keys, at most 3");
            assertThatThrownBy(
                            () ->
                                    read(
                                            new RecentEntriesSerializer(TYPES, 2),
                                            hex("00" + "01" + "0d" + ENTRY_1 + "01")))
                    .isInstanceOf(CorruptStateException.class)
                    .hasMessageContaining("without a link to an older block");
        }
    }

    @Nested
    class BitemporalRecent {
        private final BitemporalHead head = new BitemporalHead(seq(7), seq(7), null, null);
        private final TimelineBlock recent =
                TimelineBlock.of(new StateCodec(TYPES), entry(1)).withHead(head);

        /**
         * 05 80000007 (latest system sequence), 05 80000007 (open version's system start), 00 00
         * (no floors).
         */
        private static final String HEAD = "0580000007" + "0580000007" + "00" + "00";

        @Test
        void theHeadComesFirstThenTheRecentEntries() throws IOException {
            byte[] stored = bytes(new BitemporalRecentSerializer(TYPES, 3), recent);
            assertThat(hex(stored)).isEqualTo("01" + HEAD + "00" + "01" + "0d" + ENTRY_1 + "00");
            TimelineBlock back = read(new BitemporalRecentSerializer(TYPES, 3), stored);
            assertThat(back.head().latestSystemSequence()).isEqualTo(seq(7));
            assertThat(bytes(new BitemporalRecentSerializer(TYPES, 3), recent.withHead(null)))
                    .isEqualTo(hex("00" + "00" + "01" + "0d" + ENTRY_1 + "00"));
        }

        @Test
        void layoutTwoHasNoChainKeys() throws IOException {
            BitemporalRecentSerializer previous = new BitemporalRecentSerializer(TYPES, 2);
            byte[] stored = bytes(previous, recent);
            assertThat(hex(stored)).isEqualTo("01" + HEAD + "00" + "01" + "0d" + ENTRY_1);
            assertThat(read(previous, stored).head().openSystemStart()).isEqualTo(seq(7));
        }

        @Test
        void aTruncatedHeadIsRefused() {
            assertThatThrownBy(
                            () ->
                                    read(
                                            new BitemporalRecentSerializer(TYPES, 3),
                                            hex("01" + "0580000007")))
                    .isInstanceOf(CorruptStateException.class)
                    .hasMessageContaining("the bitemporal recent entries: the head ends early");
        }

        @Test
        void theHeadApartHasTheSameLayout() throws IOException {
            BitemporalHeadSerializer apart = new BitemporalHeadSerializer(TYPES);
            assertThat(hex(bytes(apart, head))).isEqualTo(HEAD);
            assertThat(read(apart, hex(HEAD)).latestSystemSequence()).isEqualTo(seq(7));
        }
    }

    @Nested
    class OtherValues {
        @Test
        void decisiveEventsAreACountThenTheEvents() throws IOException {
            DecisiveEventsSerializer serializer = new DecisiveEventsSerializer(TYPES);
            ChangeEvent delete =
                    new ChangeEvent(Op.DELETE, new Object[] {1, null}, seq(3), null, null);
            byte[] stored = bytes(serializer, List.of(entry(1).events().get(0), delete));
            // 02 events; upsert: 00 (op 0) 05 80000001 00 02 0261; delete: 01 (op 1) 05 80000003 02
            // (the value is null) 02
            assertThat(hex(stored))
                    .isEqualTo(
                            "02"
                                    + "00"
                                    + "0580000001"
                                    + "00"
                                    + "02"
                                    + "0261"
                                    + "01"
                                    + "0580000003"
                                    + "02"
                                    + "02");
            assertThat(read(serializer, stored))
                    .extracting(ChangeEvent::op)
                    .containsExactly(Op.UPSERT, Op.DELETE);
            assertThatThrownBy(() -> read(serializer, hex("05" + "00")))
                    .isInstanceOf(CorruptStateException.class)
                    .hasMessageContaining("decisive events do not decode");
        }

        @Test
        void aRetentionSnapshotRoundTrips() throws IOException {
            BitemporalSnapshotSerializer serializer = new BitemporalSnapshotSerializer(TYPES);
            BitemporalSnapshot snapshot =
                    new BitemporalSnapshot(
                            seq(4),
                            seq(9),
                            new Object[] {1, "s"},
                            List.of(
                                    new BitemporalRow(
                                            new Version(seq(4), null, new Object[] {1, "b"}),
                                            seq(9),
                                            null)));
            byte[] stored = bytes(serializer, snapshot);
            // floors, seed 01 + row, one believed row: start, end (none), row, system start, system
            // end (none)
            assertThat(hex(stored))
                    .isEqualTo(
                            "0580000004"
                                    + "0580000009"
                                    + "01"
                                    + "00"
                                    + "02"
                                    + "0273"
                                    + "01"
                                    + "0580000004"
                                    + "00"
                                    + "00"
                                    + "02"
                                    + "0262"
                                    + "0580000009"
                                    + "00");
            assertThat(bytes(serializer, read(serializer, stored))).isEqualTo(stored);
            assertThatThrownBy(() -> read(serializer, Arrays.copyOf(stored, 12)))
                    .isInstanceOf(CorruptStateException.class)
                    .hasMessageContaining("retention snapshot does not decode");
        }

        @Test
        void aTimelineEntryIsItsCodecLayout() throws IOException {
            TimelineEntrySerializer serializer = new TimelineEntrySerializer(TYPES);
            assertThat(hex(bytes(serializer, entry(1)))).isEqualTo(ENTRY_1);
        }
    }

    @Nested
    class Snapshots {
        @Test
        void eachSnapshotCarriesItsLayoutVersionAndTheColumnTypes() throws IOException {
            List<StateValueSerializer<?>> all =
                    List.of(
                            new DecisiveEventsSerializer(TYPES),
                            new TimelineEntrySerializer(TYPES),
                            new TimelineBlockSerializer(TYPES),
                            new RecentEntriesSerializer(TYPES, RecentEntriesSerializer.VERSION),
                            new BitemporalRecentSerializer(
                                    TYPES, BitemporalRecentSerializer.VERSION),
                            new BitemporalHeadSerializer(TYPES),
                            new BitemporalSnapshotSerializer(TYPES));
            assertThat(all)
                    .extracting(s -> s.snapshotConfiguration().getCurrentVersion())
                    .containsExactly(1, 1, 1, 2, 3, 2, 1);
            for (StateValueSerializer<?> s : all) {
                TypeSerializerSnapshot<?> restored = roundTrip(s.snapshotConfiguration());
                assertThat(restored.restoreSerializer())
                        .as(s.getClass().getSimpleName())
                        .isEqualTo(s);
            }
        }

        @Test
        void thePreviousRecentLayoutsMigrateAndOtherColumnTypesAreIncompatible()
                throws IOException {
            TypeSerializerSnapshot<TimelineBlock> scd2Before =
                    roundTrip(new RecentEntriesSerializer(TYPES, 1).snapshotConfiguration());
            assertThat(scd2Before.restoreSerializer())
                    .isEqualTo(new RecentEntriesSerializer(TYPES, 1));
            assertThat(
                            new RecentEntriesSerializer(TYPES, 2)
                                    .snapshotConfiguration()
                                    .resolveSchemaCompatibility(scd2Before)
                                    .isCompatibleAfterMigration())
                    .isTrue();
            TypeSerializerSnapshot<TimelineBlock> bitemporalBefore =
                    roundTrip(new BitemporalRecentSerializer(TYPES, 2).snapshotConfiguration());
            assertThat(
                            new BitemporalRecentSerializer(TYPES, 3)
                                    .snapshotConfiguration()
                                    .resolveSchemaCompatibility(bitemporalBefore)
                                    .isCompatibleAfterMigration())
                    .isTrue();
            assertThat(
                            new RecentEntriesSerializer(TYPES, 2)
                                    .snapshotConfiguration()
                                    .resolveSchemaCompatibility(
                                            roundTrip(
                                                    new RecentEntriesSerializer(TYPES, 2)
                                                            .snapshotConfiguration()))
                                    .isCompatibleAsIs())
                    .isTrue();
            List<ColumnType> otherTypes =
                    List.of(
                            ColumnType.of(ColumnType.Kind.INT),
                            ColumnType.of(ColumnType.Kind.BIGINT));
            assertThat(
                            new RecentEntriesSerializer(TYPES, 2)
                                    .snapshotConfiguration()
                                    .resolveSchemaCompatibility(
                                            roundTrip(
                                                    new RecentEntriesSerializer(otherTypes, 2)
                                                            .snapshotConfiguration()))
                                    .isIncompatible())
                    .isTrue();
            assertThat(
                            new TimelineBlockSerializer(TYPES)
                                    .snapshotConfiguration()
                                    .resolveSchemaCompatibility(
                                            castBlock(
                                                    new TimelineEntrySerializer(TYPES)
                                                            .snapshotConfiguration()))
                                    .isIncompatible())
                    .as("another stored type")
                    .isTrue();
        }

        @Test
        void snapshotsOfTheSingleSerializerClassMapToEachLayoutsVersions() throws IOException {
            assertLegacy(new DecisiveEventsSerializer(TYPES), "DECISIVE_EVENTS", 2, "as is");
            assertLegacy(new DecisiveEventsSerializer(TYPES), "DECISIVE_EVENTS", 1, "incompatible");
            assertLegacy(new TimelineEntrySerializer(TYPES), "TIMELINE_ENTRY", 2, "as is");
            assertLegacy(new TimelineEntrySerializer(TYPES), "TIMELINE_ENTRY", 1, "incompatible");
            assertLegacy(new TimelineBlockSerializer(TYPES), "TIMELINE_BLOCK", 2, "as is");
            assertLegacy(new TimelineBlockSerializer(TYPES), "TIMELINE_ENTRY", 2, "incompatible");
            assertLegacy(new RecentEntriesSerializer(TYPES, 2), "RECENT_ENTRIES", 2, "as is");
            assertLegacy(new RecentEntriesSerializer(TYPES, 2), "TIMELINE_BLOCK", 2, "migration");
            assertLegacy(
                    new BitemporalRecentSerializer(TYPES, 3),
                    "BITEMPORAL_RECENT_ENTRIES",
                    2,
                    "as is");
            assertLegacy(
                    new BitemporalRecentSerializer(TYPES, 3), "BITEMPORAL_RECENT", 2, "migration");
            assertLegacy(new BitemporalHeadSerializer(TYPES), "BITEMPORAL_SYSTEM_HEAD", 2, "as is");
            assertLegacy(new BitemporalHeadSerializer(TYPES), "BITEMPORAL_HEAD", 2, "incompatible");
            assertLegacy(
                    new BitemporalSnapshotSerializer(TYPES), "BITEMPORAL_SNAPSHOT", 2, "as is");
        }

        @Test
        void theSqlFunctionsFingerprintTextIsUnchanged() {
            assertThat(StateLayout.describe(TargetType.SCD1)).isEqualTo("state format 2, SCD1");
            assertThat(StateLayout.describe(TargetType.SCD2))
                    .isEqualTo("state format 2, SCD2 layout 2");
            assertThat(StateLayout.describe(TargetType.BITEMPORAL))
                    .isEqualTo("state format 2, BITEMPORAL layout 3");
            // the text follows every serializer: a version moved here must move the text too
            assertThat(
                            List.of(
                                    DecisiveEventsSerializer.VERSION,
                                    RecentEntriesSerializer.VERSION,
                                    TimelineBlockSerializer.VERSION,
                                    BitemporalRecentSerializer.VERSION,
                                    BitemporalHeadSerializer.VERSION,
                                    BitemporalSnapshotSerializer.VERSION))
                    .containsExactly(1, 2, 1, 3, 2, 1);
        }

        @SuppressWarnings("unchecked")
        private TypeSerializerSnapshot<TimelineBlock> castBlock(
                TypeSerializerSnapshot<?> snapshot) {
            return (TypeSerializerSnapshot<TimelineBlock>) snapshot;
        }

        /**
         * The old single-class snapshot hands the heap backend a reader of the values as they were
         * written: the SCD2 recent entries before the chain keys were a block, the bitemporal ones
         * a head and a block; the pre-release head is refused.
         */
        @Test
        void theOldSnapshotReadsEachOldContentsBytes() throws IOException {
            TimelineBlock block =
                    TimelineBlock.of(new StateCodec(TYPES), entry(1)).withOlder(seq(-1));
            byte[] blockBytes = bytes(new TimelineBlockSerializer(TYPES), block);
            TimelineBlock asRecent =
                    read(
                            this.<TimelineBlock>legacy("TIMELINE_BLOCK").restoreSerializer(),
                            blockBytes);
            assertThat(asRecent.chainKeys()).containsExactly(seq(-1));
            assertThat(asRecent.entry(0).state()).containsExactly(1, "a");
            BitemporalHead head = new BitemporalHead(seq(7), seq(7), null, null);
            byte[] bitemporalBytes =
                    bytes(new BitemporalRecentSerializer(TYPES, 2), block.withHead(head));
            TimelineBlock bitemporal =
                    read(
                            this.<TimelineBlock>legacy("BITEMPORAL_RECENT").restoreSerializer(),
                            bitemporalBytes);
            assertThat(bitemporal.head().latestSystemSequence()).isEqualTo(seq(7));
            assertThat(bitemporal.chainKeys()).containsExactly(seq(-1));
            assertThat(legacy("RECENT_ENTRIES").restoreSerializer())
                    .isEqualTo(new RecentEntriesSerializer(TYPES, 2));
            assertThat(legacy("BITEMPORAL_RECENT_ENTRIES").restoreSerializer())
                    .isEqualTo(new BitemporalRecentSerializer(TYPES, 3));
            assertThat(legacy("DECISIVE_EVENTS").restoreSerializer())
                    .isEqualTo(new DecisiveEventsSerializer(TYPES));
            assertThat(legacy("BITEMPORAL_SYSTEM_HEAD").restoreSerializer())
                    .isEqualTo(new BitemporalHeadSerializer(TYPES));
            assertThat(legacy("BITEMPORAL_SNAPSHOT").restoreSerializer())
                    .isEqualTo(new BitemporalSnapshotSerializer(TYPES));
            assertThat(legacy("TIMELINE_ENTRY").restoreSerializer())
                    .isEqualTo(new TimelineEntrySerializer(TYPES));
            assertThatThrownBy(() -> legacy("BITEMPORAL_HEAD").restoreSerializer())
                    .hasMessageContaining("pre-release layout");
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private <T> TypeSerializerSnapshot<T> legacy(String content) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(64);
            out.writeUTF(content);
            out.writeInt(2);
            out.writeInt(TYPES.size());
            for (ColumnType t : TYPES) {
                out.writeUTF(t.toString());
            }
            dev.autocdc.operators.flink.StateSerializer.Snapshot legacy =
                    new dev.autocdc.operators.flink.StateSerializer.Snapshot();
            legacy.readSnapshot(
                    1,
                    new DataInputDeserializer(out.getCopyOfBuffer()),
                    getClass().getClassLoader());
            return legacy;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private void assertLegacy(
                StateValueSerializer<?> current, String content, int format, String expected)
                throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(64);
            out.writeUTF(content);
            out.writeInt(format);
            out.writeInt(TYPES.size());
            for (ColumnType t : TYPES) {
                out.writeUTF(t.toString());
            }
            dev.autocdc.operators.flink.StateSerializer.Snapshot legacy =
                    new dev.autocdc.operators.flink.StateSerializer.Snapshot();
            legacy.readSnapshot(
                    1,
                    new DataInputDeserializer(out.getCopyOfBuffer()),
                    getClass().getClassLoader());
            TypeSerializerSchemaCompatibility<?> c =
                    ((TypeSerializerSnapshot) current.snapshotConfiguration())
                            .resolveSchemaCompatibility(legacy);
            String actual =
                    c.isCompatibleAsIs()
                            ? "as is"
                            : c.isCompatibleAfterMigration()
                                    ? "migration"
                                    : c.isIncompatible() ? "incompatible" : c.toString();
            assertThat(actual)
                    .as(
                            current.getClass().getSimpleName()
                                    + " from "
                                    + content
                                    + " format "
                                    + format)
                    .isEqualTo(expected);
        }

        private <T> TypeSerializerSnapshot<T> roundTrip(TypeSerializerSnapshot<T> snapshot)
                throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(64);
            TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
            return TypeSerializerSnapshot.readVersionedSnapshot(
                    new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
        }
    }
}
