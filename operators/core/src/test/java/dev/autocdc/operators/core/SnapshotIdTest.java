package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class SnapshotIdTest {
    private final SequenceCodec dates = new SequenceCodec(ColumnType.of(ColumnType.Kind.DATE));
    private final SequenceCodec ints = new SequenceCodec(ColumnType.of(ColumnType.Kind.INT));

    private byte[] date(String d) {
        return dates.encode(LocalDate.parse(d));
    }

    @Test
    void aVersionAloneIsItsEncoding() {
        byte[] v = date("2025-03-01");
        assertThat(SnapshotId.of(v, null)).isSameAs(v);
    }

    @Test
    void bitemporalIdsAreSystemSequenceThenVersion() {
        byte[] id = SnapshotId.of(ints.encode(7), ints.encode(300));
        // INT 300 then INT 7, each big-endian with the sign bit flipped (SequenceCodec)
        assertThat(id).containsExactly(0x80, 0x00, 0x01, 0x2C, 0x80, 0x00, 0x00, 0x07);
    }

    @Test
    void bitemporalSnapshotsSortBySystemSequenceFirst() {
        // semantics §13 H: S3 (version 02-01, taken 03-15) comes after S2 (03-01, taken 03-01)
        byte[] s2 = SnapshotId.of(date("2025-03-01"), date("2025-03-01"));
        byte[] s3 = SnapshotId.of(date("2025-02-01"), date("2025-03-15"));
        byte[] s4 = SnapshotId.of(date("2025-01-01"), date("2025-04-01"));
        assertThat(SnapshotId.compare(s2, s3)).isNegative();
        assertThat(SnapshotId.compare(s3, s4)).isNegative();
        // snapshots sharing a system sequence: by version
        byte[] a = SnapshotId.of(date("2025-01-01"), date("2025-04-01"));
        byte[] b = SnapshotId.of(date("2025-02-01"), date("2025-04-01"));
        assertThat(SnapshotId.compare(a, b)).isNegative();
        assertThat(SnapshotId.compare(a, SnapshotId.of(date("2025-01-01"), date("2025-04-01"))))
                .isZero();
    }
}
