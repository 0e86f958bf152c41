package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.BitemporalSnapshotKey.Rows;
import dev.autocdc.operators.core.BitemporalSnapshotKey.Write;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hand-typed cases of the lazy deletes: snapshots written as (system sequence, version), INT both;
 * each write names the snapshot whose sequences it carries. The property tests against the
 * contract's reference model are {@code SnapshotFlowTest}'s.
 */
class BitemporalSnapshotKeyTest {
    private static final SequenceCodec INTS = new SequenceCodec(ColumnType.of(ColumnType.Kind.INT));

    private final SnapshotIndex index = new SnapshotIndex();
    private final BitemporalSnapshotKey key = BitemporalSnapshotKey.initial();

    private byte[] snapshot(int sys, int version) {
        byte[] id = SnapshotId.of(INTS.encode(version), INTS.encode(sys));
        index.add(id, INTS.encode(version));
        return id;
    }

    /** Applies a snapshot, every write accepted; returns the writes. */
    private List<Write> apply(BitemporalSnapshotKey k, byte[] id, Rows rows) throws Exception {
        List<Write> writes = new ArrayList<>();
        assertThat(k.apply(id, rows, index, w -> writes.add(w))).isTrue();
        return writes;
    }

    private static Write upsert(byte[] at) {
        return new Write(false, at);
    }

    private static Write delete(byte[] at) {
        return new Write(true, at);
    }

    private static void assertWrites(List<Write> actual, Write... expected) {
        assertThat(actual).hasSize(expected.length);
        for (int i = 0; i < expected.length; i++) {
            assertThat(actual.get(i).delete())
                    .as("write %d is a delete", i)
                    .isEqualTo(expected[i].delete());
            assertThat(actual.get(i).at()).as("write %d's snapshot", i).isEqualTo(expected[i].at());
        }
    }

    @Test
    void aDeleteWhereTheKeyIsAbsentWaitsUntilARestatementNeedsIt() throws Exception {
        byte[] s1 = snapshot(10, 5); // without the key: nothing to write
        assertWrites(apply(key, s1, Rows.NONE));
        byte[] s2 = snapshot(20, 1); // version 1 restated with the key: closed at 5, by s1
        assertWrites(apply(key, s2, Rows.UPSERT), delete(s1), upsert(s2));
        assertThat(key.presentAt(INTS.encode(1))).isTrue();
        assertThat(key.presentAt(INTS.encode(5))).isFalse();
        assertThat(key.presentAtEnd()).isFalse();
    }

    @Test
    void aDeleteAlreadyWrittenIsNotWrittenAgain() throws Exception {
        byte[] s1 = snapshot(10, 1);
        assertWrites(apply(key, s1, Rows.UPSERT), upsert(s1));
        byte[] s2 = snapshot(20, 3); // the key vanished at 3
        assertWrites(apply(key, s2, Rows.NONE), delete(s2));
        byte[] s3 = snapshot(30, 2); // version 2 restated with the key: 3 is deleted already
        assertWrites(apply(key, s3, Rows.UPSERT), upsert(s3));
    }

    @Test
    void snapshotsSharingASystemSequenceWriteTheSkippedDeleteOnce() throws Exception {
        byte[] s0 = snapshot(10, 5);
        assertWrites(apply(key, s0, Rows.NONE));
        byte[] a = snapshot(20, 1);
        byte[] b = snapshot(20, 3);
        assertWrites(apply(key, a, Rows.UPSERT), delete(s0), upsert(a));
        assertWrites(apply(key, b, Rows.UPSERT), upsert(b));
        assertThat(key.deletedVersions()).containsExactly(INTS.encode(5));
    }

    @Test
    void aHeldSnapshotIsNoNextVersion() throws Exception {
        byte[] s1 = snapshot(10, 1);
        assertWrites(apply(key, s1, Rows.UPSERT), upsert(s1));
        byte[] s2 = snapshot(20, 3); // the key's rows held: no event at 3
        assertWrites(apply(key, s2, Rows.HELD));
        byte[] s3 = snapshot(30, 2); // version 2 restated without the key: absent from 2 on
        assertWrites(apply(key, s3, Rows.NONE), delete(s3));
        assertThat(key.presentAt(INTS.encode(3))).isFalse();
        byte[] s4 = snapshot(40, 2); // and again with it: present from 2 on, nothing to close
        assertWrites(apply(key, s4, Rows.UPSERT), upsert(s4));
        assertThat(key.presentAtEnd()).isTrue();
        assertThat(key.presencePoints()).containsExactly(INTS.encode(1));
        assertThat(key.heldIds()).containsExactly(s2);
    }

    @Test
    void aRefusedLateDeleteChangesNothingAndWritesNoUpsert() throws Exception {
        byte[] s1 = snapshot(10, 5);
        assertWrites(apply(key, s1, Rows.NONE));
        byte[] s2 = snapshot(20, 1);
        // the target refuses the late delete (the key's history left state): nothing is written
        List<Write> tried = new ArrayList<>();
        assertThat(key.apply(s2, Rows.UPSERT, index, w -> tried.add(w) && !w.delete())).isFalse();
        assertWrites(tried, delete(s1));
        assertThat(key.everPresent()).isFalse();
        assertThat(key.deletedVersions()).isEmpty();
        // a refused upsert after an accepted late delete: the delete is recorded, the key absent
        byte[] s3 = snapshot(30, 2);
        tried.clear();
        assertThat(key.apply(s3, Rows.UPSERT, index, w -> tried.add(w) && w.delete())).isFalse();
        assertWrites(tried, delete(s1), upsert(s3));
        assertThat(key.everPresent()).isFalse();
        assertThat(key.deletedVersions()).containsExactly(INTS.encode(5));
    }

    @Test
    void aKeyRoundTripsThroughItsLists() throws Exception {
        byte[] s0 = snapshot(10, 5);
        apply(key, s0, Rows.NONE);
        byte[] s1 = snapshot(20, 1);
        apply(key, s1, Rows.UPSERT);
        byte[] s2 = snapshot(30, 4);
        apply(key, s2, Rows.HELD);
        BitemporalSnapshotKey copy =
                BitemporalSnapshotKey.of(
                        key.presencePoints(), key.heldIds(), key.deletedVersions());
        assertThat(copy.presencePoints()).containsExactlyElementsOf(key.presencePoints());
        assertThat(copy.heldIds()).containsExactly(s2);
        assertThat(copy.deletedVersions()).containsExactly(INTS.encode(5));
        // the copy behaves alike: version 3 restated with the key; 5 is deleted already
        byte[] s3 = snapshot(40, 3);
        assertWrites(apply(copy, s3, Rows.UPSERT), upsert(s3));
    }
}
