package dev.autocdc.operators.core;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The primitive layer of the state format ({@link StateCodec}, format 2): unsigned varints, byte
 * strings and single column values over plain {@link DataOutput} / {@link DataInput}. Stateless;
 * every method is static.
 *
 * <ul>
 *   <li>varint / varlong: unsigned LEB128, 7 bits per byte, low bits first, the high bit set on
 *       every byte but the last ({@code 300} is {@code AC 02}); an int is written as its unsigned
 *       32 bits ({@code -1} takes five bytes);
 *   <li>zigzag: a signed number as the varlong of {@code v << 1 ^ v >> 63} (0, -1, 1, -2 are 0, 1,
 *       2, 3), so that small negative numbers stay short;
 *   <li>byte string: {@code varint(length + 1)} then the bytes; a single 0 byte is null;
 *   <li>value: a flag byte (0 null, 1 present), then the present value by type:
 *       <ul>
 *         <li>BOOLEAN one byte (0 or 1); TINYINT one byte; FLOAT / DOUBLE 4 / 8 bytes big-endian
 *             IEEE 754 (so -0.0 and NaN keep their bits);
 *         <li>SMALLINT, INT, BIGINT zigzag; DATE zigzag epoch day; TIME varlong nano of day;
 *         <li>DECIMAL the unscaled value's two's-complement bytes as a byte string, then the scale
 *             zigzag (1.00 keeps its scale);
 *         <li>STRING its UTF-8 bytes as a byte string; BYTES a byte string;
 *         <li>TIMESTAMP zigzag epoch second at UTC, then varint nano of second; TIMESTAMP_LTZ the
 *             same of the instant;
 *         <li>ROW each field as a value (with its flag); ARRAY varint count then elements as
 *             values; MAP varint count then key, value as values.
 *       </ul>
 * </ul>
 *
 * A change here changes every stored layout, as a change of {@link StateCodec} does.
 */
public final class ValueCodec {
    private ValueCodec() {}

    public static void writeBytes(byte[] bytes, DataOutput out) throws IOException {
        if (bytes == null) {
            out.writeByte(0);
        } else {
            writeVarInt(bytes.length + 1, out);
            out.write(bytes);
        }
    }

    public static byte[] readBytes(DataInput in) throws IOException {
        int n = readVarInt(in) - 1;
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    public static void writeVarInt(int v, DataOutput out) throws IOException {
        writeVarLong(v & 0xFFFFFFFFL, out);
    }

    public static int readVarInt(DataInput in) throws IOException {
        return (int) readVarLong(in);
    }

    /** Unsigned LEB128: 7 bits per byte, low bits first. */
    public static void writeVarLong(long v, DataOutput out) throws IOException {
        while ((v & ~0x7FL) != 0) {
            out.writeByte((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    public static long readVarLong(DataInput in) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IOException("Malformed varint in state");
    }

    private static void writeZigZag(long v, DataOutput out) throws IOException {
        writeVarLong(v << 1 ^ v >> 63, out);
    }

    private static long readZigZag(DataInput in) throws IOException {
        long v = readVarLong(in);
        return v >>> 1 ^ -(v & 1);
    }

    /** A value preceded by a null flag byte (0 null, 1 present). */
    public static void writeValue(ColumnType type, Object v, DataOutput out) throws IOException {
        if (v == null) {
            out.writeByte(0);
            return;
        }
        out.writeByte(1);
        writePresent(type, v, out);
    }

    /** A non-null value without its null flag (a row's values follow its null bitmap). */
    static void writePresent(ColumnType type, Object v, DataOutput out) throws IOException {
        switch (type.kind()) {
            case BOOLEAN:
                out.writeBoolean((Boolean) v);
                break;
            case TINYINT:
                out.writeByte((Byte) v);
                break;
            case SMALLINT:
                writeZigZag((Short) v, out);
                break;
            case INT:
                writeZigZag((Integer) v, out);
                break;
            case BIGINT:
                writeZigZag((Long) v, out);
                break;
            case FLOAT:
                out.writeFloat((Float) v);
                break;
            case DOUBLE:
                out.writeDouble((Double) v);
                break;
            case DECIMAL:
                {
                    BigDecimal d = (BigDecimal) v;
                    writeBytes(d.unscaledValue().toByteArray(), out);
                    writeZigZag(d.scale(), out);
                    break;
                }
            case STRING:
                writeString((String) v, out);
                break;
            case BYTES:
                writeBytes((byte[]) v, out);
                break;
            case DATE:
                writeZigZag(((LocalDate) v).toEpochDay(), out);
                break;
            case TIME:
                writeVarLong(((LocalTime) v).toNanoOfDay(), out);
                break;
            case TIMESTAMP:
                {
                    LocalDateTime t = (LocalDateTime) v;
                    writeZigZag(t.toEpochSecond(ZoneOffset.UTC), out);
                    writeVarInt(t.getNano(), out);
                    break;
                }
            case TIMESTAMP_LTZ:
                {
                    Instant t = (Instant) v;
                    writeZigZag(t.getEpochSecond(), out);
                    writeVarInt(t.getNano(), out);
                    break;
                }
            case ROW:
                writeRow(type, (Object[]) v, out);
                break;
            case ARRAY:
                writeArray(type, (List<?>) v, out);
                break;
            case MAP:
                writeMap(type, (Map<?, ?>) v, out);
                break;
            default:
                throw new IllegalArgumentException("Unsupported type " + type);
        }
    }

    private static void writeRow(ColumnType type, Object[] fields, DataOutput out)
            throws IOException {
        for (int i = 0; i < type.children().size(); i++) {
            writeValue(type.children().get(i), fields[i], out);
        }
    }

    private static void writeArray(ColumnType type, List<?> list, DataOutput out)
            throws IOException {
        writeVarInt(list.size(), out);
        for (Object x : list) {
            writeValue(type.children().get(0), x, out);
        }
    }

    private static void writeMap(ColumnType type, Map<?, ?> map, DataOutput out)
            throws IOException {
        writeVarInt(map.size(), out);
        for (Map.Entry<?, ?> e : map.entrySet()) {
            writeValue(type.children().get(0), e.getKey(), out);
            writeValue(type.children().get(1), e.getValue(), out);
        }
    }

    public static Object readValue(ColumnType type, DataInput in) throws IOException {
        if (in.readByte() == 0) {
            return null;
        }
        return readPresent(type, in);
    }

    static Object readPresent(ColumnType type, DataInput in) throws IOException {
        switch (type.kind()) {
            case BOOLEAN:
                return in.readBoolean();
            case TINYINT:
                return in.readByte();
            case SMALLINT:
                return (short) readZigZag(in);
            case INT:
                return (int) readZigZag(in);
            case BIGINT:
                return readZigZag(in);
            case FLOAT:
                return in.readFloat();
            case DOUBLE:
                return in.readDouble();
            case DECIMAL:
                {
                    byte[] unscaled = readBytes(in);
                    return new BigDecimal(new BigInteger(unscaled), (int) readZigZag(in));
                }
            case STRING:
                return readString(in);
            case BYTES:
                return readBytes(in);
            case DATE:
                return LocalDate.ofEpochDay(readZigZag(in));
            case TIME:
                return LocalTime.ofNanoOfDay(readVarLong(in));
            case TIMESTAMP:
                {
                    long s = readZigZag(in);
                    return LocalDateTime.ofEpochSecond(s, readVarInt(in), ZoneOffset.UTC);
                }
            case TIMESTAMP_LTZ:
                {
                    long s = readZigZag(in);
                    return Instant.ofEpochSecond(s, readVarInt(in));
                }
            case ROW:
                return readRow(type, in);
            case ARRAY:
                return readArray(type, in);
            case MAP:
                return readMap(type, in);
            default:
                throw new IllegalArgumentException("Unsupported type " + type);
        }
    }

    private static Object[] readRow(ColumnType type, DataInput in) throws IOException {
        Object[] fields = new Object[type.children().size()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = readValue(type.children().get(i), in);
        }
        return fields;
    }

    private static List<Object> readArray(ColumnType type, DataInput in) throws IOException {
        int n = readVarInt(in);
        List<Object> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readValue(type.children().get(0), in));
        }
        return list;
    }

    private static Map<Object, Object> readMap(ColumnType type, DataInput in) throws IOException {
        int n = readVarInt(in);
        Map<Object, Object> map = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Object k = readValue(type.children().get(0), in);
            map.put(k, readValue(type.children().get(1), in));
        }
        return map;
    }

    /**
     * UTF-8 bytes with a length (writeUTF is limited to 64 KB), as {@code
     * writeBytes(s.getBytes(UTF_8))}; an ASCII string (whose UTF-8 bytes are its chars) is written
     * char by char, without encoding it into an array first.
     */
    private static void writeString(String s, DataOutput out) throws IOException {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                writeBytes(s.getBytes(StandardCharsets.UTF_8), out);
                return;
            }
        }
        writeVarInt(n + 1, out);
        // byte by byte: Flink's DataOutputSerializer.writeBytes(String) advances its position
        // twice (Flink 2.2.1), so the whole-string call is not used
        for (int i = 0; i < n; i++) {
            out.writeByte(s.charAt(i));
        }
    }

    private static String readString(DataInput in) throws IOException {
        return new String(readBytes(in), StandardCharsets.UTF_8);
    }
}
