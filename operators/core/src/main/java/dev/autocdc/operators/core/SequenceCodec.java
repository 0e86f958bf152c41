package dev.autocdc.operators.core;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;

/**
 * An order-preserving byte encoding of sequence values (semantics §1, §6): for two values a, b of
 * the codec's type, {@code compareUnsigned(encode(a), encode(b))} has the sign of the type's
 * natural order. Encodings are also prefix-free, so the encodings of a STRUCT's fields concatenate
 * into an encoding that orders lexicographically (ties on the first field broken by the second,
 * ...).
 *
 * <p>Layouts, field by field:
 *
 * <ul>
 *   <li>TINYINT, SMALLINT, INT, BIGINT: big-endian two's complement of 1, 2, 4, 8 bytes with the
 *       sign bit flipped;
 *   <li>DATE: the epoch day as an INT;
 *   <li>TIMESTAMP (as if in UTC) and TIMESTAMP_LTZ: epoch seconds as a BIGINT, then the nano of
 *       second as an INT;
 *   <li>STRING: UTF-8 bytes with 0x00 written as 0x00 0xFF, ended by 0x00 0x00 (byte order = UTF-8
 *       order, and a string sorts before its extensions);
 *   <li>DECIMAL: 0x01 for negative, 0x02 for zero, 0x03 for positive; a positive value is
 *       0.d1d2...dn x 10^e (no trailing zero digit) written as e (INT) and the ASCII digits ended
 *       by 0x00; a negative value writes the positive layout of its absolute value with every byte
 *       inverted, which reverses its order. Scale does not matter: 1.0 and 1.00 encode alike;
 *   <li>ROW: the fields' encodings, concatenated.
 * </ul>
 *
 * Null has no encoding: a null anywhere in a sequence is bad input (semantics §11).
 */
public final class SequenceCodec {

    private final ColumnType type;

    /**
     * The length of every encoding of a fixed-width type (see {@link #encodeFixedWidth}); else -1.
     */
    private final int fixedWidth;

    public SequenceCodec(ColumnType type) {
        if (!type.sortsAsSequence()) {
            throw new IllegalArgumentException(
                    "A sequence of type "
                            + type
                            + " does not sort: use INT, BIGINT, DECIMAL, DATE, TIMESTAMP,"
                            + " TIMESTAMP_LTZ, STRING or a STRUCT of those");
        }
        this.type = type;
        this.fixedWidth = fixedWidth(type);
    }

    private static int fixedWidth(ColumnType type) {
        switch (type.kind()) {
            case INT:
            case DATE:
                return 4;
            case BIGINT:
                return 8;
            case TIMESTAMP:
            case TIMESTAMP_LTZ:
                return 12;
            default:
                return -1;
        }
    }

    public ColumnType type() {
        return type;
    }

    /** Whether the value has no null anywhere (else it cannot be encoded). */
    public boolean isComplete(Object value) {
        return isComplete(type, value);
    }

    private static boolean isComplete(ColumnType type, Object value) {
        if (value == null) {
            return false;
        }
        if (type.kind() == ColumnType.Kind.ROW) {
            Object[] fields = (Object[]) value;
            for (int i = 0; i < type.children().size(); i++) {
                if (!isComplete(type.children().get(i), fields[i])) {
                    return false;
                }
            }
        }
        return true;
    }

    public byte[] encode(Object value) {
        byte[] fixed = encodeFixedWidth(value);
        if (fixed != null) {
            return fixed;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(16);
        encode(type, value, out);
        return out.toByteArray();
    }

    /**
     * The layout of a fixed-width type written straight into its array (one allocation per event
     * instead of a stream, its buffer and the copy); null for the other types. The bytes are those
     * of {@link #encode(ColumnType, Object, ByteArrayOutputStream)}.
     */
    private byte[] encodeFixedWidth(Object value) {
        if (value == null) {
            return null; // refused by the general path
        }
        switch (type.kind()) {
            case INT:
                return putFlipped(new byte[4], 0, (Integer) value, 4);
            case BIGINT:
                return putFlipped(new byte[8], 0, (Long) value, 8);
            case DATE:
                return putFlipped(
                        new byte[4], 0, Math.toIntExact(((LocalDate) value).toEpochDay()), 4);
            case TIMESTAMP:
                {
                    LocalDateTime t = (LocalDateTime) value;
                    byte[] b = putFlipped(new byte[12], 0, t.toEpochSecond(ZoneOffset.UTC), 8);
                    return putFlipped(b, 8, t.getNano(), 4);
                }
            case TIMESTAMP_LTZ:
                {
                    Instant t = (Instant) value;
                    byte[] b = putFlipped(new byte[12], 0, t.getEpochSecond(), 8);
                    return putFlipped(b, 8, t.getNano(), 4);
                }
            default:
                return null;
        }
    }

    /**
     * The value of a fixed-width type's bytes, read without a position holder (decoded for every
     * row the target receives); the values of {@link #decode(ColumnType, byte[], int[])}.
     */
    private Object decodeFixedWidth(byte[] b) {
        switch (type.kind()) {
            case INT:
                return (int) getFlipped(b, 0, 4);
            case BIGINT:
                return getFlipped(b, 0, 8);
            case DATE:
                return LocalDate.ofEpochDay((int) getFlipped(b, 0, 4));
            case TIMESTAMP:
                return LocalDateTime.ofEpochSecond(
                        getFlipped(b, 0, 8), (int) getFlipped(b, 8, 4), ZoneOffset.UTC);
            case TIMESTAMP_LTZ:
                return Instant.ofEpochSecond(getFlipped(b, 0, 8), (int) getFlipped(b, 8, 4));
            default:
                throw new IllegalStateException("Not a fixed-width sequence type: " + type);
        }
    }

    /** The value {@link #putFlipped} wrote into {@code b} at {@code off}. */
    private static long getFlipped(byte[] b, int off, int width) {
        long v = 0;
        for (int i = 0; i < width; i++) {
            v = (v << 8) | (b[off + i] & 0xFF);
        }
        v ^= 1L << (width * 8 - 1);
        // sign-extend narrower widths
        int shift = 64 - width * 8;
        return (v << shift) >> shift;
    }

    /** {@link #writeFlipped} into {@code b} at {@code off}; returns {@code b}. */
    private static byte[] putFlipped(byte[] b, int off, long v, int width) {
        long flipped = v ^ (1L << (width * 8 - 1));
        for (int i = 0; i < width; i++) {
            b[off + i] = (byte) (flipped >>> ((width - 1 - i) * 8));
        }
        return b;
    }

    public Object decode(byte[] bytes) {
        if (bytes.length == fixedWidth) {
            return decodeFixedWidth(bytes);
        }
        int[] pos = {0};
        Object v = decode(type, bytes, pos);
        if (pos[0] != bytes.length) {
            throw new IllegalArgumentException("Trailing bytes in a " + type + " sequence");
        }
        return v;
    }

    private static void encode(ColumnType type, Object value, ByteArrayOutputStream out) {
        if (value == null) {
            throw new IllegalArgumentException("A null has no sequence encoding");
        }
        switch (type.kind()) {
            case TINYINT:
                out.write(((Byte) value) ^ 0x80);
                break;
            case SMALLINT:
                writeFlipped(out, (Short) value, 2);
                break;
            case INT:
                writeFlipped(out, (Integer) value, 4);
                break;
            case BIGINT:
                writeFlipped(out, (Long) value, 8);
                break;
            case DATE:
                writeFlipped(out, Math.toIntExact(((LocalDate) value).toEpochDay()), 4);
                break;
            case TIMESTAMP:
                {
                    LocalDateTime t = (LocalDateTime) value;
                    writeFlipped(out, t.toEpochSecond(ZoneOffset.UTC), 8);
                    writeFlipped(out, t.getNano(), 4);
                    break;
                }
            case TIMESTAMP_LTZ:
                {
                    Instant t = (Instant) value;
                    writeFlipped(out, t.getEpochSecond(), 8);
                    writeFlipped(out, t.getNano(), 4);
                    break;
                }
            case STRING:
                writeEscaped(out, ((String) value).getBytes(StandardCharsets.UTF_8));
                break;
            case DECIMAL:
                writeDecimal(out, (BigDecimal) value);
                break;
            case ROW:
                {
                    Object[] fields = (Object[]) value;
                    List<ColumnType> children = type.children();
                    for (int i = 0; i < children.size(); i++) {
                        encode(children.get(i), fields[i], out);
                    }
                    break;
                }
            default:
                throw new IllegalArgumentException("Not a sequence type: " + type);
        }
    }

    private static Object decode(ColumnType type, byte[] b, int[] pos) {
        switch (type.kind()) {
            case TINYINT:
                return (byte) (b[pos[0]++] ^ 0x80);
            case SMALLINT:
                return (short) readFlipped(b, pos, 2);
            case INT:
                return (int) readFlipped(b, pos, 4);
            case BIGINT:
                return readFlipped(b, pos, 8);
            case DATE:
                return LocalDate.ofEpochDay((int) readFlipped(b, pos, 4));
            case TIMESTAMP:
                {
                    long seconds = readFlipped(b, pos, 8);
                    int nanos = (int) readFlipped(b, pos, 4);
                    return LocalDateTime.ofEpochSecond(seconds, nanos, ZoneOffset.UTC);
                }
            case TIMESTAMP_LTZ:
                {
                    long seconds = readFlipped(b, pos, 8);
                    int nanos = (int) readFlipped(b, pos, 4);
                    return Instant.ofEpochSecond(seconds, nanos);
                }
            case STRING:
                return new String(readEscaped(b, pos), StandardCharsets.UTF_8);
            case DECIMAL:
                return readDecimal(b, pos);
            case ROW:
                {
                    List<ColumnType> children = type.children();
                    Object[] fields = new Object[children.size()];
                    for (int i = 0; i < fields.length; i++) {
                        fields[i] = decode(children.get(i), b, pos);
                    }
                    return fields;
                }
            default:
                throw new IllegalArgumentException("Not a sequence type: " + type);
        }
    }

    private static void writeFlipped(ByteArrayOutputStream out, long v, int width) {
        long flipped = v ^ (1L << (width * 8 - 1));
        for (int i = width - 1; i >= 0; i--) {
            out.write((int) (flipped >>> (i * 8)) & 0xFF);
        }
    }

    private static long readFlipped(byte[] b, int[] pos, int width) {
        long v = getFlipped(b, pos[0], width);
        pos[0] += width;
        return v;
    }

    private static void writeEscaped(ByteArrayOutputStream out, byte[] bytes) {
        for (byte x : bytes) {
            out.write(x);
            if (x == 0) {
                out.write(0xFF);
            }
        }
        out.write(0);
        out.write(0);
    }

    private static byte[] readEscaped(byte[] b, int[] pos) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            byte x = b[pos[0]++];
            if (x != 0) {
                out.write(x);
            } else if (b[pos[0]++] == 0) {
                return out.toByteArray();
            } else {
                out.write(0);
            }
        }
    }

    private static void writeDecimal(ByteArrayOutputStream out, BigDecimal value) {
        int sign = value.signum();
        if (sign == 0) {
            out.write(0x02);
            return;
        }
        BigDecimal abs = value.abs().stripTrailingZeros();
        String digits = abs.unscaledValue().toString();
        // abs = digits x 10^-scale = 0.digits x 10^(len - scale)
        int exponent = digits.length() - abs.scale();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeFlipped(body, exponent, 4);
        body.write(digits.getBytes(StandardCharsets.US_ASCII), 0, digits.length());
        body.write(0);
        byte[] bytes = body.toByteArray();
        if (sign < 0) {
            out.write(0x01);
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) ~bytes[i];
            }
        } else {
            out.write(0x03);
        }
        out.write(bytes, 0, bytes.length);
    }

    private static BigDecimal readDecimal(byte[] b, int[] pos) {
        int marker = b[pos[0]++];
        if (marker == 0x02) {
            return BigDecimal.ZERO;
        }
        boolean negative = marker == 0x01;
        int mask = negative ? 0xFF : 0;
        byte[] exp = new byte[4];
        for (int i = 0; i < 4; i++) {
            exp[i] = (byte) (b[pos[0]++] ^ mask);
        }
        int exponent = (int) readFlipped(exp, new int[] {0}, 4);
        StringBuilder digits = new StringBuilder();
        while (true) {
            int d = (b[pos[0]++] ^ mask) & 0xFF;
            if (d == 0) {
                break;
            }
            digits.append((char) d);
        }
        BigDecimal abs =
                new BigDecimal(new BigInteger(digits.toString()), digits.length() - exponent);
        return negative ? abs.negate() : abs;
    }

    /** Unsigned lexicographic comparison of two encodings (null-safe: null first). */
    public static int compare(byte[] a, byte[] b) {
        if (a == b) {
            return 0;
        }
        if (a == null) {
            return -1;
        }
        if (b == null) {
            return 1;
        }
        return Arrays.compareUnsigned(a, b);
    }
}
