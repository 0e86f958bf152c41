package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The compact state format (format 2) round-trips every column type, including extremes, nulls and
 * nested values, through events and timeline entries with every flag combination, and is compact: a
 * full-row entry does not store its sequence, row or version start twice.
 */
class StateCodecTest {
    private static final ColumnType.Kind[] SCALARS = {
        ColumnType.Kind.BOOLEAN,
        ColumnType.Kind.TINYINT,
        ColumnType.Kind.SMALLINT,
        ColumnType.Kind.INT,
        ColumnType.Kind.BIGINT,
        ColumnType.Kind.FLOAT,
        ColumnType.Kind.DOUBLE,
        ColumnType.Kind.DECIMAL,
        ColumnType.Kind.STRING,
        ColumnType.Kind.BYTES,
        ColumnType.Kind.DATE,
        ColumnType.Kind.TIME,
        ColumnType.Kind.TIMESTAMP,
        ColumnType.Kind.TIMESTAMP_LTZ
    };

    private static List<ColumnType> types() {
        List<ColumnType> types = new ArrayList<>();
        for (ColumnType.Kind k : SCALARS) {
            types.add(ColumnType.of(k));
        }
        types.add(
                ColumnType.row(
                        List.of("x", "y"),
                        List.of(
                                ColumnType.of(ColumnType.Kind.INT),
                                ColumnType.of(ColumnType.Kind.STRING))));
        types.add(ColumnType.array(ColumnType.of(ColumnType.Kind.BIGINT)));
        types.add(
                ColumnType.map(
                        ColumnType.of(ColumnType.Kind.STRING), ColumnType.of(ColumnType.Kind.INT)));
        return types;
    }

    private static Object value(ColumnType.Kind kind, Random r) {
        if (r.nextInt(5) == 0) {
            return null;
        }
        boolean extreme = r.nextBoolean();
        switch (kind) {
            case BOOLEAN:
                return r.nextBoolean();
            case TINYINT:
                return extreme
                        ? (r.nextBoolean() ? Byte.MIN_VALUE : Byte.MAX_VALUE)
                        : (byte) r.nextInt();
            case SMALLINT:
                return extreme
                        ? (r.nextBoolean() ? Short.MIN_VALUE : Short.MAX_VALUE)
                        : (short) r.nextInt();
            case INT:
                return extreme
                        ? (r.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE)
                        : r.nextInt(2001) - 1000;
            case BIGINT:
                return extreme ? (r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE) : r.nextLong();
            case FLOAT:
                return extreme ? (r.nextBoolean() ? Float.NaN : -0.0f) : r.nextFloat() - 0.5f;
            case DOUBLE:
                return extreme
                        ? (r.nextBoolean() ? Double.NEGATIVE_INFINITY : -0.0)
                        : r.nextDouble() - 0.5;
            case DECIMAL:
                return extreme
                        ? new BigDecimal("1.00")
                        : new BigDecimal(r.nextLong()).movePointLeft(r.nextInt(20) - 5);
            case STRING:
                return extreme ? "x".repeat(70_000) + "\u00e9\ud83d\ude00" : "s" + r.nextInt(100);
            case BYTES:
                return extreme ? new byte[0] : new byte[] {(byte) r.nextInt(), 0, -1};
            case DATE:
                return LocalDate.ofEpochDay(extreme ? -719_162 : r.nextInt(40_000));
            case TIME:
                return LocalTime.ofNanoOfDay(extreme ? 86_399_999_999_999L : r.nextInt(1_000_000));
            case TIMESTAMP:
                return LocalDateTime.of(
                        extreme ? -5000 : 2025,
                        1 + r.nextInt(12),
                        1,
                        0,
                        0,
                        0,
                        r.nextInt(1_000_000_000));
            case TIMESTAMP_LTZ:
                return Instant.ofEpochSecond(
                        extreme ? -62_000_000_000L : r.nextInt(), r.nextInt(1_000_000_000));
            default:
                throw new AssertionError(kind);
        }
    }

    private static Object[] row(List<ColumnType> types, Random r) {
        Object[] row = new Object[types.size()];
        for (int i = 0; i < SCALARS.length; i++) {
            row[i] = value(SCALARS[i], r);
        }
        row[SCALARS.length] =
                r.nextBoolean() ? null : new Object[] {r.nextBoolean() ? null : r.nextInt(), "n"};
        row[SCALARS.length + 1] = r.nextBoolean() ? null : Arrays.asList(1L, null, Long.MIN_VALUE);
        row[SCALARS.length + 2] = r.nextBoolean() ? null : Map.of("k", -7);
        return row;
    }

    @Test
    void entriesRoundTripWithEveryFlagCombination() throws IOException {
        List<ColumnType> types = types();
        StateCodec codec = new StateCodec(types);
        Random r = new Random(11);
        for (int i = 0; i < 2_000; i++) {
            byte[] seq = r.nextInt(10) == 0 ? new byte[0] : new byte[] {(byte) r.nextInt(), 5};
            List<ChangeEvent> events = new ArrayList<>();
            for (int e = 0; e <= r.nextInt(3); e++) {
                Op op = Op.values()[r.nextInt(Op.values().length)];
                byte[] eventSeq = r.nextBoolean() ? seq : new byte[] {(byte) e};
                byte[] sys = r.nextBoolean() ? null : new byte[300];
                boolean[] written = r.nextBoolean() ? null : new boolean[types.size()];
                if (written != null) {
                    written[r.nextInt(written.length)] = true;
                }
                events.add(new ChangeEvent(op, row(types, r), eventSeq, sys, written));
            }
            ChangeEvent last = events.get(events.size() - 1);
            Object[] state =
                    r.nextInt(3) == 0
                            ? null
                            : r.nextBoolean() && last.isUpsert()
                                    ? last.row()
                                    : r.nextBoolean() && last.isUpsert()
                                            ? sameButNegativeZero(last.row())
                                            : row(types, r);
            byte[] start = state == null ? null : r.nextBoolean() ? seq : new byte[] {9};
            byte[] since = r.nextBoolean() ? null : new byte[] {(byte) r.nextInt(), 7};
            TimelineEntry entry =
                    new TimelineEntry(
                            seq,
                            events,
                            state,
                            start,
                            r.nextBoolean() ? 0 : r.nextLong() >>> 1,
                            since);

            TimelineEntry back =
                    codec.readEntry(
                            new DataInputStream(new ByteArrayInputStream(bytes(codec, entry))));
            assertThat(back.sequence()).isEqualTo(entry.sequence());
            assertThat(back.versionStart()).isEqualTo(entry.versionStart());
            assertThat(back.writtenAt()).isEqualTo(entry.writtenAt());
            assertThat(back.believedSince()).isEqualTo(entry.believedSince());
            // exactly: -0.0 stays -0.0, 1.00 keeps its scale
            assertThat(Arrays.deepEquals(back.state(), entry.state())).as("state").isTrue();
            assertThat(back.events()).hasSameSizeAs(entry.events());
            for (int e = 0; e < events.size(); e++) {
                ChangeEvent a = entry.events().get(e);
                ChangeEvent b = back.events().get(e);
                assertThat(b.op()).isEqualTo(a.op());
                assertThat(b.sequence()).isEqualTo(a.sequence());
                assertThat(b.systemSequence()).isEqualTo(a.systemSequence());
                assertThat(b.columnsToUpdate()).isEqualTo(a.columnsToUpdate());
                assertThat(Arrays.deepEquals(b.row(), a.row()))
                        .as("row " + Arrays.deepToString(a.row()))
                        .isTrue();
            }
        }
    }

    @Test
    void aFullRowEntryStoresItsSequenceAndRowOnce() throws IOException {
        List<ColumnType> types =
                List.of(
                        ColumnType.of(ColumnType.Kind.BIGINT),
                        ColumnType.of(ColumnType.Kind.INT),
                        ColumnType.of(ColumnType.Kind.STRING),
                        ColumnType.of(ColumnType.Kind.BIGINT));
        StateCodec codec = new StateCodec(types);
        byte[] seq =
                new SequenceCodec(ColumnType.of(ColumnType.Kind.BIGINT)).encode(1_700_000_000_000L);
        Object[] row = {123_456L, 42, "sixteen-chars-xx", 987_654_321L};
        TimelineEntry entry =
                new TimelineEntry(
                        seq, List.of(new ChangeEvent(Op.UPSERT, row, seq, null, null)), row, seq);
        int size = bytes(codec, entry).length;
        // sequence (1 + 8), event count 1, event header 1, null bitmap 1, values 3 + 1 + 17 + 5,
        // flags 1, written-at 1
        assertThat(size).isEqualTo(9 + 1 + 1 + 1 + 3 + 1 + 17 + 5 + 1 + 1);
    }

    /**
     * A restore that added columns writes stored values read with the previous columns: a shorter
     * row and COLUMNS TO UPDATE bitmap are written as the padded ones, nulls and false after their
     * end, across a bitmap byte (8 columns to 10).
     */
    @Test
    void aShorterRowIsWrittenWithNullsAfterItsEnd() throws IOException {
        List<ColumnType> types = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            types.add(ColumnType.of(i % 2 == 0 ? ColumnType.Kind.INT : ColumnType.Kind.STRING));
        }
        StateCodec wide = new StateCodec(types);
        StateCodec narrow = new StateCodec(types.subList(0, 8));
        assertThat(wide.sameColumns(narrow)).isFalse();
        assertThat(wide.sameColumns(new StateCodec(types))).isTrue();
        Object[] shortRow = {1, "a", null, "b", 5, null, 7, "c"};
        boolean[] shortBits = {true, false, false, true, false, false, false, true};
        byte[] seq = new SequenceCodec(ColumnType.of(ColumnType.Kind.INT)).encode(3);
        ChangeEvent stored = new ChangeEvent(Op.UPSERT, shortRow, seq, null, shortBits);
        Object[] padded = Arrays.copyOf(shortRow, 10);
        boolean[] paddedBits = Arrays.copyOf(shortBits, 10);
        ChangeEvent expected = new ChangeEvent(Op.UPSERT, padded, seq, null, paddedBits);
        ByteArrayOutputStream a = new ByteArrayOutputStream();
        wide.writeEvent(stored, new DataOutputStream(a));
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        wide.writeEvent(expected, new DataOutputStream(b));
        assertThat(a.toByteArray()).isEqualTo(b.toByteArray());
        ChangeEvent read =
                wide.readEvent(new DataInputStream(new ByteArrayInputStream(a.toByteArray())));
        assertThat(read.row()).containsExactly(padded);
        assertThat(read.columnsToUpdate()).containsExactly(paddedBits);
    }

    /** The row with every DOUBLE 0.0 as -0.0: equal for the engine, but it must be stored apart. */
    private static Object[] sameButNegativeZero(Object[] row) {
        Object[] copy = row.clone();
        int d = Arrays.asList(SCALARS).indexOf(ColumnType.Kind.DOUBLE);
        copy[d] = -0.0;
        return copy;
    }

    private static byte[] bytes(StateCodec codec, TimelineEntry entry) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        codec.writeEntry(entry, new DataOutputStream(buffer));
        return buffer.toByteArray();
    }
}
