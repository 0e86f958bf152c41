package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SnapshotIndexTest {
    private static final SequenceCodec INTS = new SequenceCodec(ColumnType.of(ColumnType.Kind.INT));

    private final SnapshotIndex index = new SnapshotIndex();

    private byte[] snapshot(int sys, int version) {
        byte[] id = SnapshotId.of(INTS.encode(version), INTS.encode(sys));
        index.add(id, INTS.encode(version));
        return id;
    }

    @Test
    void aSnapshotRestatesWhenOneAppliedBeforeHasAGreaterVersion() {
        byte[] a = snapshot(10, 3);
        byte[] b = snapshot(20, 5);
        byte[] c = snapshot(30, 5); // the newest version again: no older version restated
        byte[] d = snapshot(30, 4);
        assertThat(index.restatesOlder(a)).isFalse();
        assertThat(index.restatesOlder(b)).isFalse();
        assertThat(index.restatesOlder(c)).isFalse();
        assertThat(index.restatesOlder(d)).isTrue();
        // shared system sequence: (30, 4) is applied before (30, 5), which restates nothing
        assertThat(SnapshotId.compare(d, c)).isNegative();
    }

    @Test
    void theSuccessorIsTheLastSnapshotOfTheNextVersionAppliedBefore() {
        byte[] a = snapshot(10, 5);
        byte[] b = snapshot(20, 5);
        byte[] c = snapshot(30, 7);
        byte[] restated = snapshot(40, 2);
        TreeSet<byte[]> held = new TreeSet<>(SnapshotId::compare);
        assertThat(index.successor(INTS.encode(2), restated, held)).isEqualTo(b);
        held.add(b); // the key held at b: a decides its event at 5
        assertThat(index.successor(INTS.encode(2), restated, held)).isEqualTo(a);
        held.add(a); // no event at 5 at all: 7 is next
        assertThat(index.successor(INTS.encode(2), restated, held)).isEqualTo(c);
        // only snapshots applied before count: before b, version 5 has a alone
        assertThat(index.successor(INTS.encode(2), b, new TreeSet<>(SnapshotId::compare)))
                .isEqualTo(a);
        assertThat(index.successor(INTS.encode(7), restated, held)).isNull();
    }

    @Test
    void snapshotsAddedOutOfOrderAnswerAlike() {
        // a restore reads the complete snapshots in any order
        byte[] late = SnapshotId.of(INTS.encode(2), INTS.encode(40));
        index.add(late, INTS.encode(2));
        byte[] a = snapshot(10, 5);
        byte[] b = snapshot(30, 7);
        assertThat(index.restatesOlder(late)).isTrue();
        assertThat(index.restatesOlder(b)).isFalse();
        assertThat(index.successor(INTS.encode(2), late, new TreeSet<>(SnapshotId::compare)))
                .isEqualTo(a);
        assertThat(index.successor(INTS.encode(5), b, new TreeSet<>(SnapshotId::compare))).isNull();
    }
}
