package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The primitive layer of the state format, field by field: each layout of {@link ValueCodec}'s
 * Javadoc against bytes typed by hand, and each read back to an equal value.
 */
class ValueCodecTest {
    private interface Write {
        void to(DataOutputStream out) throws IOException;
    }

    private static byte[] written(Write w) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        w.to(new DataOutputStream(buffer));
        return buffer.toByteArray();
    }

    private static DataInputStream in(byte[] bytes) {
        return new DataInputStream(new ByteArrayInputStream(bytes));
    }

    private static byte[] hex(String s) {
        String[] parts = s.split(" ");
        byte[] b = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            b[i] = (byte) Integer.parseInt(parts[i], 16);
        }
        return b;
    }

    @Test
    void varintsAreLeb128LowBitsFirst() throws IOException {
        Object[][] cases = {
            {0, "00"},
            {1, "01"},
            {127, "7f"},
            {128, "80 01"},
            {300, "ac 02"},
            {-1, "ff ff ff ff 0f"} // an int as its unsigned 32 bits
        };
        for (Object[] c : cases) {
            int v = (Integer) c[0];
            byte[] bytes = written(out -> ValueCodec.writeVarInt(v, out));
            assertThat(bytes).as("varint %d", v).isEqualTo(hex((String) c[1]));
            assertThat(ValueCodec.readVarInt(in(bytes))).isEqualTo(v);
        }
        byte[] minusOne = written(out -> ValueCodec.writeVarLong(-1L, out));
        assertThat(minusOne).isEqualTo(hex("ff ff ff ff ff ff ff ff ff 01"));
        assertThat(ValueCodec.readVarLong(in(minusOne))).isEqualTo(-1L);
    }

    @Test
    void aVarintOfMoreThanTenBytesIsRejected() {
        byte[] endless = hex("80 80 80 80 80 80 80 80 80 80 01");
        assertThatThrownBy(() -> ValueCodec.readVarLong(in(endless)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Malformed varint");
    }

    @Test
    void byteStringsAreTheirLengthPlusOneThenTheBytes() throws IOException {
        Object[][] cases = {{null, "00"}, {new byte[0], "01"}, {new byte[] {(byte) 0xab}, "02 ab"}};
        for (Object[] c : cases) {
            byte[] v = (byte[]) c[0];
            byte[] bytes = written(out -> ValueCodec.writeBytes(v, out));
            assertThat(bytes).isEqualTo(hex((String) c[1]));
            assertThat(ValueCodec.readBytes(in(bytes))).isEqualTo(v);
        }
    }

    /** Every type's layout, with the flag byte in front: 01 present, 00 null. */
    @Test
    void eachTypeHasTheDocumentedLayout() throws IOException {
        ColumnType intType = ColumnType.of(ColumnType.Kind.INT);
        ColumnType stringType = ColumnType.of(ColumnType.Kind.STRING);
        Object[][] cases = {
            {ColumnType.Kind.INT, null, "00"},
            {ColumnType.Kind.BOOLEAN, true, "01 01"},
            {ColumnType.Kind.TINYINT, (byte) -1, "01 ff"},
            {ColumnType.Kind.SMALLINT, (short) -3, "01 05"},
            // zigzag: 0, -1, 1, -2, 64 are 0, 1, 2, 3, 128
            {ColumnType.Kind.INT, 0, "01 00"},
            {ColumnType.Kind.INT, -1, "01 01"},
            {ColumnType.Kind.INT, 1, "01 02"},
            {ColumnType.Kind.INT, -2, "01 03"},
            {ColumnType.Kind.INT, 64, "01 80 01"},
            {ColumnType.Kind.BIGINT, Long.MIN_VALUE, "01 ff ff ff ff ff ff ff ff ff 01"},
            {ColumnType.Kind.FLOAT, 1.0f, "01 3f 80 00 00"},
            {ColumnType.Kind.DOUBLE, -0.0, "01 80 00 00 00 00 00 00 00"},
            // unscaled 100 as one byte behind its length + 1, scale 2 as zigzag 4
            {ColumnType.Kind.DECIMAL, new BigDecimal("1.00"), "01 02 64 04"},
            {ColumnType.Kind.DECIMAL, new BigDecimal("-1.5"), "01 02 f1 02"},
            {ColumnType.Kind.STRING, "", "01 01"},
            {ColumnType.Kind.STRING, "\u00e9", "01 03 c3 a9"},
            {ColumnType.Kind.BYTES, new byte[] {7}, "01 02 07"},
            {ColumnType.Kind.DATE, LocalDate.of(1970, 1, 2), "01 02"},
            {ColumnType.Kind.DATE, LocalDate.of(1969, 12, 31), "01 01"},
            {ColumnType.Kind.TIME, LocalTime.ofNanoOfDay(100), "01 64"},
            {ColumnType.Kind.TIME, LocalTime.of(0, 0, 1), "01 80 94 eb dc 03"},
            {ColumnType.Kind.TIMESTAMP, LocalDateTime.of(1969, 12, 31, 23, 59, 59), "01 01 00"},
            {
                ColumnType.Kind.TIMESTAMP,
                LocalDateTime.of(1970, 1, 1, 0, 0, 1, 500_000_000),
                "01 02 80 ca b5 ee 01"
            },
            {ColumnType.Kind.TIMESTAMP_LTZ, Instant.ofEpochSecond(1, 7), "01 02 07"},
        };
        for (Object[] c : cases) {
            ColumnType type = ColumnType.of((ColumnType.Kind) c[0]);
            assertLayout(type, c[1], (String) c[2]);
        }
        // nested values carry their own flags
        assertLayout(
                ColumnType.row(List.of("x", "y"), List.of(intType, stringType)),
                new Object[] {5, null},
                "01 01 0a 00");
        assertLayout(
                ColumnType.array(ColumnType.of(ColumnType.Kind.BIGINT)),
                Arrays.asList(1L, null),
                "01 02 01 02 00");
        assertLayout(ColumnType.map(stringType, intType), Map.of("k", -1), "01 01 01 02 6b 01 01");
    }

    private static void assertLayout(ColumnType type, Object v, String expected)
            throws IOException {
        byte[] bytes = written(out -> ValueCodec.writeValue(type, v, out));
        assertThat(bytes).as("%s %s", type, v).isEqualTo(hex(expected));
        Object back = ValueCodec.readValue(type, in(bytes));
        assertThat(Arrays.deepEquals(new Object[] {back}, new Object[] {v}))
                .as("%s %s read back as %s", type, v, back)
                .isTrue();
    }

    /**
     * A present string is its UTF-8 bytes behind their length plus one, whether it is ASCII
     * (written char by char) or not (encoded first); and it reads back.
     */
    @Test
    void aStringIsItsUtf8BytesBehindTheirLength() throws IOException {
        ColumnType string = ColumnType.of(ColumnType.Kind.STRING);
        String[] cases = {
            "",
            "a",
            "sixteen-chars-xx",
            "\u007f",
            "\u0080",
            "caf\u00e9",
            "\uD83D\uDE00",
            "x".repeat(200)
        };
        for (String v : cases) {
            byte[] bytes = written(out -> ValueCodec.writeValue(string, v, out));
            byte[] expected =
                    written(
                            out -> {
                                out.write(1); // present
                                ValueCodec.writeBytes(v.getBytes(StandardCharsets.UTF_8), out);
                            });
            assertThat(bytes).as(v).isEqualTo(expected);
            assertThat(ValueCodec.readValue(string, in(bytes))).isEqualTo(v);
        }
        // present, the length as a varint (200 chars plus one take two bytes), then the chars
        byte[] longOne = written(out -> ValueCodec.writeValue(string, "x".repeat(200), out));
        assertThat(longOne).hasSize(203);
        assertThat(longOne[1]).isEqualTo((byte) 0xc9);
        assertThat(longOne[2]).isEqualTo((byte) 0x01);
        assertThat(longOne[3]).isEqualTo((byte) 'x');
    }
}
