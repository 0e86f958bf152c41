package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * semantics §1, §6: sequence values are compared through an order-preserving byte encoding. For
 * every sortable type, on edge and random values: {@code Arrays.compareUnsigned} of two encodings
 * has the sign of the values' natural order ({@link Values#compare}; strings additionally checked
 * against their UTF-8 bytes), {@code decode(encode(x))} is x ({@link Values#same}), and no encoding
 * is a proper prefix of another (so a STRUCT's field encodings concatenate into a lexicographic
 * order).
 */
class SequenceCodecTest {
    private static final ColumnType TINYINT = ColumnType.of(ColumnType.Kind.TINYINT);
    private static final ColumnType SMALLINT = ColumnType.of(ColumnType.Kind.SMALLINT);
    private static final ColumnType INT = ColumnType.of(ColumnType.Kind.INT);
    private static final ColumnType BIGINT = ColumnType.of(ColumnType.Kind.BIGINT);
    private static final ColumnType DECIMAL = ColumnType.of(ColumnType.Kind.DECIMAL);
    private static final ColumnType DATE = ColumnType.of(ColumnType.Kind.DATE);
    private static final ColumnType TIMESTAMP = ColumnType.of(ColumnType.Kind.TIMESTAMP);
    private static final ColumnType TIMESTAMP_LTZ = ColumnType.of(ColumnType.Kind.TIMESTAMP_LTZ);
    private static final ColumnType STRING = ColumnType.of(ColumnType.Kind.STRING);

    private final Random random = new Random(20251129L);

    @Test
    void tinyint() {
        List<Object> values = new ArrayList<>();
        for (int i = Byte.MIN_VALUE; i <= Byte.MAX_VALUE; i++) {
            values.add((byte) i);
        }
        check(TINYINT, values);
    }

    @Test
    void smallint() {
        List<Object> values =
                new ArrayList<>(
                        List.of(
                                Short.MIN_VALUE,
                                (short) (Short.MIN_VALUE + 1),
                                (short) -256,
                                (short) -255,
                                (short) -129,
                                (short) -128,
                                (short) -1,
                                (short) 0,
                                (short) 1,
                                (short) 127,
                                (short) 128,
                                (short) 255,
                                (short) 256,
                                (short) (Short.MAX_VALUE - 1),
                                Short.MAX_VALUE));
        for (int i = 0; i < 300; i++) {
            values.add((short) random.nextInt());
        }
        check(SMALLINT, values);
    }

    @Test
    void integer() {
        List<Object> values =
                new ArrayList<>(
                        List.of(
                                Integer.MIN_VALUE,
                                Integer.MIN_VALUE + 1,
                                -65536,
                                -65535,
                                -256,
                                -255,
                                -129,
                                -128,
                                -1,
                                0,
                                1,
                                127,
                                128,
                                255,
                                256,
                                65535,
                                65536,
                                1 << 24,
                                Integer.MAX_VALUE - 1,
                                Integer.MAX_VALUE));
        for (int i = 0; i < 300; i++) {
            values.add(i % 2 == 0 ? random.nextInt() : random.nextInt(2001) - 1000);
        }
        check(INT, values);
    }

    @Test
    void bigint() {
        List<Object> values =
                new ArrayList<>(
                        List.of(
                                Long.MIN_VALUE,
                                Long.MIN_VALUE + 1,
                                (long) Integer.MIN_VALUE - 1,
                                (long) Integer.MIN_VALUE,
                                -256L,
                                -1L,
                                0L,
                                1L,
                                255L,
                                256L,
                                (long) Integer.MAX_VALUE,
                                (long) Integer.MAX_VALUE + 1,
                                1L << 56,
                                Long.MAX_VALUE - 1,
                                Long.MAX_VALUE));
        for (int i = 0; i < 300; i++) {
            values.add(i % 2 == 0 ? random.nextLong() : (long) random.nextInt(2001) - 1000);
        }
        check(BIGINT, values);
    }

    @Test
    void decimal() {
        List<Object> values = new ArrayList<>();
        for (String s :
                List.of(
                        "-1E+100",
                        "-99999999999999999999999999999999999999",
                        "-123456789012345678901234567890.123456789",
                        "-12345.678",
                        "-100",
                        "-1E+2",
                        "-10",
                        "-10.0",
                        "-9.99",
                        "-9.9",
                        "-1.5",
                        "-1.01",
                        "-1.00",
                        "-1.0",
                        "-1",
                        "-0.99",
                        "-0.5",
                        "-0.50",
                        "-0.05",
                        "-0.0500",
                        "-0.00000000000000000000000000000000000001",
                        "-1E-100",
                        "0",
                        "0.00",
                        "0E+5",
                        "0E-5",
                        "1E-100",
                        "0.00000000000000000000000000000000000001",
                        "1E-38",
                        "0.05",
                        "0.050",
                        "0.5",
                        "0.50",
                        "0.99",
                        "1",
                        "1.0",
                        "1.00",
                        "1.000000000000000000000000000000000000",
                        "1.01",
                        "1.1",
                        "1.5",
                        "9.9",
                        "9.99",
                        "9.999999999999999999999999999999999999",
                        "10",
                        "10.0",
                        "10.5",
                        "11",
                        "100",
                        "1E+2",
                        "101",
                        "12345.678",
                        "123456789012345678901234567890.123456789",
                        "99999999999999999999999999999999999999",
                        "1E+38",
                        "1E+100")) {
            values.add(new BigDecimal(s));
        }
        for (int i = 0; i < 400; i++) {
            BigInteger unscaled = new BigInteger(1 + random.nextInt(127), random);
            if (random.nextBoolean()) {
                unscaled = unscaled.negate();
            }
            int scale = random.nextInt(81) - 40;
            values.add(new BigDecimal(unscaled, scale));
            if (i % 10 == 0) {
                values.add(
                        new BigDecimal(unscaled, scale)
                                .setScale(
                                        Math.max(scale, 0) + 3)); // same value, more trailing zeros
            }
        }
        check(DECIMAL, values);
    }

    @Test
    void decimalScaleDoesNotMatter() {
        SequenceCodec codec = new SequenceCodec(DECIMAL);
        assertThat(codec.encode(new BigDecimal("1.0")))
                .isEqualTo(codec.encode(new BigDecimal("1.00")));
        assertThat(codec.encode(new BigDecimal("-2.50")))
                .isEqualTo(codec.encode(new BigDecimal("-2.5")));
        assertThat(codec.encode(new BigDecimal("0.000"))).isEqualTo(codec.encode(BigDecimal.ZERO));
        assertThat(codec.encode(new BigDecimal("1E+2")))
                .isEqualTo(codec.encode(new BigDecimal("100")));
        assertThat(
                        Arrays.compareUnsigned(
                                codec.encode(new BigDecimal("0.5")),
                                codec.encode(new BigDecimal("0.05"))))
                .isPositive();
        assertThat(
                        Arrays.compareUnsigned(
                                codec.encode(new BigDecimal("10")),
                                codec.encode(new BigDecimal("9.99"))))
                .isPositive();
        assertThat(
                        Arrays.compareUnsigned(
                                codec.encode(new BigDecimal("-10")),
                                codec.encode(new BigDecimal("-9.99"))))
                .isNegative();
    }

    @Test
    void date() {
        List<Object> values =
                new ArrayList<>(
                        List.of(
                                LocalDate.ofEpochDay(Integer.MIN_VALUE),
                                LocalDate.of(-9999, 1, 1),
                                LocalDate.of(0, 1, 1),
                                LocalDate.of(1, 1, 1),
                                LocalDate.of(1582, 10, 15),
                                LocalDate.of(1900, 2, 28),
                                LocalDate.of(1900, 3, 1),
                                LocalDate.of(1969, 12, 31),
                                LocalDate.of(1970, 1, 1),
                                LocalDate.of(1970, 1, 2),
                                LocalDate.of(2000, 2, 29),
                                LocalDate.of(2025, 1, 1),
                                LocalDate.of(9999, 12, 31),
                                LocalDate.ofEpochDay(Integer.MAX_VALUE)));
        for (int i = 0; i < 300; i++) {
            values.add(LocalDate.ofEpochDay(random.nextInt(3_700_000) - 800_000));
        }
        check(DATE, values);
    }

    @Test
    void timestamp() {
        List<Object> values =
                new ArrayList<>(
                        List.of(
                                LocalDateTime.MIN,
                                LocalDateTime.of(1, 1, 1, 0, 0),
                                LocalDateTime.of(1900, 1, 1, 0, 0, 0, 500_000_000),
                                LocalDateTime.of(1969, 12, 31, 23, 59, 59),
                                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 1),
                                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999),
                                LocalDateTime.of(1970, 1, 1, 0, 0),
                                LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1),
                                LocalDateTime.of(1970, 1, 1, 0, 0, 0, 999_999_999),
                                LocalDateTime.of(1970, 1, 1, 0, 0, 1),
                                LocalDateTime.of(2025, 7, 18, 12, 15, 43),
                                LocalDateTime.of(2025, 7, 18, 12, 15, 43, 123_456_789),
                                LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_999),
                                LocalDateTime.MAX));
        for (int i = 0; i < 300; i++) {
            long seconds =
                    i % 2 == 0
                            ? random.nextInt() * 10L
                            : random.nextInt(200) - 100; // around 1970 too
            int nanos = random.nextInt(4) == 0 ? 0 : random.nextInt(1_000_000_000);
            values.add(LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC));
        }
        check(TIMESTAMP, values);
    }

    @Test
    void timestampLtz() {
        List<Object> values =
                new ArrayList<>(
                        List.of(
                                Instant.MIN,
                                Instant.ofEpochSecond(-62_135_596_800L),
                                Instant.ofEpochSecond(-1),
                                Instant.ofEpochSecond(-1, 1),
                                Instant.ofEpochSecond(-1, 999_999_999),
                                Instant.EPOCH,
                                Instant.ofEpochSecond(0, 1),
                                Instant.ofEpochSecond(0, 999_999_999),
                                Instant.ofEpochSecond(1),
                                Instant.parse("2025-07-18T12:15:43.123456789Z"),
                                Instant.MAX));
        for (int i = 0; i < 300; i++) {
            long seconds = i % 2 == 0 ? random.nextInt() * 10L : random.nextInt(200) - 100;
            values.add(Instant.ofEpochSecond(seconds, random.nextInt(1_000_000_000)));
        }
        check(TIMESTAMP_LTZ, values);
    }

    @Test
    void string() {
        List<Object> values =
                new ArrayList<>(
                        List.of(
                                "",
                                "\u0000",
                                "\u0000\u0000",
                                "\u0000a",
                                "\u0001",
                                "a",
                                "a\u0000",
                                "a\u0000\u0000",
                                "a\u0000b",
                                "a\u0001",
                                "ab",
                                "abc",
                                "abd",
                                "b",
                                "z",
                                "\u007F",
                                "\u0080",
                                "\u00E9",
                                "\u00FF",
                                "\u0100",
                                "\u07FF",
                                "\u0800",
                                "\uD7FF",
                                "\uE000",
                                "\uFFFD",
                                "\uFFFF",
                                "\uD800\uDC00" /* U+10000: after U+FFFF in UTF-8, before it in UTF-16 */,
                                "\uD83D\uDE00",
                                "\uDBFF\uDFFF",
                                "\uFFFF\uD800\uDC00",
                                "\uD800\uDC00\uFFFF",
                                "a\uD83D\uDE00",
                                "a\uFFFF",
                                "Ünïcödé",
                                "日本語",
                                "日本"));
        String[] pool = {
            "\u0000",
            "\u0001",
            "a",
            "b",
            "\u007F",
            "\u0080",
            "\u00FF",
            "\u0100",
            "\u07FF",
            "\u0800",
            "\uFFFD",
            "\uFFFF",
            "\uD800\uDC00",
            "\uD83D\uDE00",
            "\uDBFF\uDFFF"
        };
        for (int i = 0; i < 400; i++) {
            StringBuilder s = new StringBuilder();
            int length = random.nextInt(7);
            for (int j = 0; j < length; j++) {
                s.append(pool[random.nextInt(pool.length)]);
            }
            values.add(s.toString());
        }
        check(STRING, values);
        // The natural order of strings is the order of their UTF-8 bytes (semantics §1).
        SequenceCodec codec = new SequenceCodec(STRING);
        for (Object a : values) {
            for (Object b : values) {
                int utf8 =
                        Integer.signum(
                                Arrays.compareUnsigned(
                                        ((String) a).getBytes(StandardCharsets.UTF_8),
                                        ((String) b).getBytes(StandardCharsets.UTF_8)));
                int encoded =
                        Integer.signum(Arrays.compareUnsigned(codec.encode(a), codec.encode(b)));
                if (utf8 != encoded) {
                    throw new AssertionError(
                            "UTF-8 order of "
                                    + show(a)
                                    + " vs "
                                    + show(b)
                                    + " is "
                                    + utf8
                                    + " but the encodings compare "
                                    + encoded);
                }
            }
        }
    }

    @Test
    void rowOfStringAndInt() {
        ColumnType type = ColumnType.row(List.of("s", "i"), List.of(STRING, INT));
        List<Object> values = new ArrayList<>();
        for (String s :
                List.of(
                        "",
                        "\u0000",
                        "a",
                        "a\u0000",
                        "a\u0001",
                        "ab",
                        "b",
                        "\uFFFF",
                        "\uD800\uDC00")) {
            for (int i : List.of(Integer.MIN_VALUE, -1, 0, 1, 255, 256, Integer.MAX_VALUE)) {
                values.add(new Object[] {s, i});
            }
        }
        for (int k = 0; k < 150; k++) {
            values.add(new Object[] {randomString(), random.nextInt(7) - 3});
        }
        check(type, values);
    }

    @Test
    void rowOfIntAndString() {
        ColumnType type = ColumnType.row(List.of("i", "s"), List.of(INT, STRING));
        List<Object> values = new ArrayList<>();
        for (int i : List.of(Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE)) {
            for (String s : List.of("", "\u0000", "a", "a\u0000", "ab", "\uFFFF", "\uD83D\uDE00")) {
                values.add(new Object[] {i, s});
            }
        }
        for (int k = 0; k < 150; k++) {
            values.add(new Object[] {random.nextInt(5) - 2, randomString()});
        }
        check(type, values);
    }

    @Test
    void rowOfStringAndString() {
        // the prefix-freeness of STRING is what makes ("a", "b") and ("a\u0000...", ...) order
        // right
        ColumnType type = ColumnType.row(List.of("a", "b"), List.of(STRING, STRING));
        List<Object> values = new ArrayList<>();
        List<String> parts =
                List.of("", "\u0000", "\u0000\u0000", "a", "a\u0000", "ab", "b", "\uFFFF");
        for (String a : parts) {
            for (String b : parts) {
                values.add(new Object[] {a, b});
            }
        }
        for (int k = 0; k < 150; k++) {
            values.add(new Object[] {randomString(), randomString()});
        }
        check(type, values);
    }

    @Test
    void rowOfDecimalDateTimestampBigintAndNestedRow() {
        ColumnType inner = ColumnType.row(List.of("s", "i"), List.of(STRING, INT));
        ColumnType type =
                ColumnType.row(
                        List.of("d", "day", "ts", "n", "inner"),
                        List.of(DECIMAL, DATE, TIMESTAMP, BIGINT, inner));
        List<Object> values = new ArrayList<>();
        List<BigDecimal> decimals =
                List.of(
                        new BigDecimal("-1.5"),
                        new BigDecimal("0"),
                        new BigDecimal("0.05"),
                        new BigDecimal("0.5"),
                        new BigDecimal("1.0"),
                        new BigDecimal("1.00"),
                        new BigDecimal("9.99"),
                        new BigDecimal("10"));
        List<LocalDate> dates = List.of(LocalDate.of(1969, 12, 31), LocalDate.of(1970, 1, 1));
        List<LocalDateTime> timestamps =
                List.of(
                        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999),
                        LocalDateTime.of(1970, 1, 1, 0, 0));
        for (BigDecimal d : decimals) {
            for (LocalDate day : dates) {
                for (LocalDateTime ts : timestamps) {
                    for (long n : List.of(-1L, 0L)) {
                        for (Object[] in :
                                List.of(
                                        new Object[] {"", 0},
                                        new Object[] {"a", -1},
                                        new Object[] {"a\u0000", -1})) {
                            values.add(new Object[] {d, day, ts, n, in});
                        }
                    }
                }
            }
        }
        check(type, values);
    }

    /**
     * The fixed-width types are written straight into their array at the top level and through the
     * stream inside a ROW: both give the same bytes, and both read back the same value.
     */
    @Test
    void fixedWidthTypesEncodeAndDecodeAsTheyDoInARow() {
        for (int i = 0; i < 500; i++) {
            long seconds = random.nextLong() % 100_000_000_000L;
            int nanos = random.nextInt(1_000_000_000);
            Object[][] cases = {
                {INT, random.nextInt()},
                {BIGINT, random.nextLong()},
                {DATE, LocalDate.ofEpochDay(random.nextInt(2_000_000) - 1_000_000)},
                {TIMESTAMP, LocalDateTime.ofEpochSecond(seconds, nanos, java.time.ZoneOffset.UTC)},
                {TIMESTAMP_LTZ, java.time.Instant.ofEpochSecond(seconds, nanos)}
            };
            for (Object[] c : cases) {
                ColumnType type = (ColumnType) c[0];
                byte[] top = new SequenceCodec(type).encode(c[1]);
                byte[] inRow =
                        new SequenceCodec(ColumnType.row(List.of("f"), List.of(type)))
                                .encode(new Object[] {c[1]});
                assertThat(hex(top)).as(type + " " + c[1]).isEqualTo(hex(inRow));
                // and read back straight from their array, as the stream reads them in the ROW
                Object inRowBack =
                        ((Object[])
                                        new SequenceCodec(
                                                        ColumnType.row(List.of("f"), List.of(type)))
                                                .decode(inRow))
                                [0];
                assertThat(new SequenceCodec(type).decode(top))
                        .as(type + " " + c[1])
                        .isEqualTo(c[1])
                        .isEqualTo(inRowBack);
            }
        }
    }

    @Test
    void nullsHaveNoEncoding() {
        SequenceCodec codec =
                new SequenceCodec(ColumnType.row(List.of("s", "i"), List.of(STRING, INT)));
        assertThat(codec.isComplete(new Object[] {"a", 1})).isTrue();
        assertThat(codec.isComplete(new Object[] {"a", null})).isFalse();
        assertThat(codec.isComplete(null)).isFalse();
        assertThatThrownBy(() -> codec.encode(new Object[] {null, 1}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SequenceCodec(INT).encode(null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nonSortableTypesAreRejected() {
        List<ColumnType> rejected =
                List.of(
                        ColumnType.of(ColumnType.Kind.DOUBLE),
                        ColumnType.of(ColumnType.Kind.BOOLEAN),
                        ColumnType.of(ColumnType.Kind.FLOAT),
                        ColumnType.of(ColumnType.Kind.BYTES),
                        ColumnType.of(ColumnType.Kind.TIME),
                        ColumnType.array(INT),
                        ColumnType.map(STRING, INT),
                        ColumnType.row(
                                List.of("s", "x"),
                                List.of(STRING, ColumnType.of(ColumnType.Kind.DOUBLE))),
                        ColumnType.row(
                                List.of("b"), List.of(ColumnType.of(ColumnType.Kind.BOOLEAN))),
                        ColumnType.row(List.of(), List.of()));
        for (ColumnType type : rejected) {
            assertThat(type.sortsAsSequence()).as(type.toString()).isFalse();
            assertThatThrownBy(() -> new SequenceCodec(type))
                    .as(type.toString())
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    // ------------------------------------------------------------------------------------------------

    private String randomString() {
        String[] pool = {"\u0000", "a", "b", "\u00FF", "\uFFFF", "\uD800\uDC00"};
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(4);
        for (int j = 0; j < length; j++) {
            s.append(pool[random.nextInt(pool.length)]);
        }
        return s.toString();
    }

    /** The three properties on every value and every pair of values. */
    private static void check(ColumnType type, List<Object> values) {
        SequenceCodec codec = new SequenceCodec(type);
        assertThat(type.sortsAsSequence()).isTrue();
        List<byte[]> encodings = new ArrayList<>(values.size());
        for (Object v : values) {
            byte[] e = codec.encode(v);
            encodings.add(e);
            Object back = codec.decode(e);
            if (!Values.same(back, v)) {
                throw new AssertionError(
                        type + ": decode(encode(" + show(v) + ")) = " + show(back));
            }
            if (!Arrays.equals(codec.encode(back), e)) {
                throw new AssertionError(
                        type
                                + ": encode(decode(encode("
                                + show(v)
                                + "))) differs from encode("
                                + show(v)
                                + ")");
            }
        }
        for (int i = 0; i < values.size(); i++) {
            byte[] a = encodings.get(i);
            for (int j = 0; j < values.size(); j++) {
                byte[] b = encodings.get(j);
                int natural = Integer.signum(Values.compare(values.get(i), values.get(j)));
                int encoded = Integer.signum(Arrays.compareUnsigned(a, b));
                if (natural != encoded) {
                    throw new AssertionError(
                            type
                                    + ": "
                                    + show(values.get(i))
                                    + " vs "
                                    + show(values.get(j))
                                    + " compare "
                                    + natural
                                    + " but their encodings "
                                    + hex(a)
                                    + " vs "
                                    + hex(b)
                                    + " compare "
                                    + encoded);
                }
                if (a.length < b.length && Arrays.equals(a, 0, a.length, b, 0, a.length)) {
                    throw new AssertionError(
                            type
                                    + ": the encoding of "
                                    + show(values.get(i))
                                    + " ("
                                    + hex(a)
                                    + ") is a proper prefix of that of "
                                    + show(values.get(j))
                                    + " ("
                                    + hex(b)
                                    + ")");
                }
            }
        }
    }

    private static String show(Object v) {
        String s = Arrays.deepToString(new Object[] {v});
        StringBuilder out = new StringBuilder();
        s.codePoints()
                .forEach(
                        c -> {
                            if (c < 0x20 || c > 0x7E) {
                                out.append(String.format("\\u{%X}", c));
                            } else {
                                out.appendCodePoint(c);
                            }
                        });
        return out.toString();
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
