package dev.autocdc.operators.core;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The binary form of the engine's per-key state, over plain {@link DataOutput} / {@link DataInput} so
 * Flink's state serializers can wrap it. It is part of the savepoint format: change a layout only with
 * a new {@link #FORMAT_VERSION} and a reader for the old one.
 *
 * <p>Layouts:
 * <ul>
 *   <li>value: a null flag byte (0 null, 1 present) then the value by type (integers fixed width,
 *       DECIMAL as unscaled bytes + scale, STRING as length + UTF-8 bytes, DATE as epoch day,
 *       TIME as nano of day, TIMESTAMP / TIMESTAMP_LTZ as epoch second + nano, ROW field by field,
 *       ARRAY / MAP as a count then elements);</li>
 *   <li>row: the base columns' values in flow order;</li>
 *   <li>event: op byte, sequence (length + bytes), system sequence (-1 when absent), row,
 *       COLUMNS TO UPDATE (0 = all, else 1 + one boolean per column);</li>
 *   <li>timeline entry: sequence, event count and events, state flag (0 absent, 1 the last event's row,
 *       2 explicit row follows), version start (-1 when absent), the time it was written (ms);</li>
 *   <li>decisive events (SCD1): count then events;</li>
 *   <li>bitemporal head: latest sequence, latest system sequence, state flag + row, open start, open
 *       system start, floor sequence, floor system sequence;</li>
 *   <li>bitemporal snapshot: floor sequence, floor system sequence, seed flag + row, count, then per
 *       believed row: start, end, row, system start, system end.</li>
 * </ul>
 */
public final class StateCodec {
    public static final int FORMAT_VERSION = 1;

    private final List<ColumnType> types;

    public StateCodec(List<ColumnType> types) {
        this.types = List.copyOf(types);
    }

    public List<ColumnType> types() {
        return types;
    }

    // ---- events and entries

    public void writeEvent(ChangeEvent e, DataOutput out) throws IOException {
        out.writeByte(e.op().ordinal());
        writeBytes(e.sequence(), out);
        writeBytes(e.systemSequence(), out);
        writeRow(e.row(), out);
        boolean[] written = e.columnsToUpdate();
        if (written == null) {
            out.writeByte(0);
        } else {
            out.writeByte(1);
            for (boolean w : written) {
                out.writeBoolean(w);
            }
        }
    }

    public ChangeEvent readEvent(DataInput in) throws IOException {
        Op op = Op.values()[in.readByte()];
        byte[] sequence = readBytes(in);
        byte[] system = readBytes(in);
        Object[] row = readRow(in);
        boolean[] written = null;
        if (in.readByte() == 1) {
            written = new boolean[types.size()];
            for (int i = 0; i < written.length; i++) {
                written[i] = in.readBoolean();
            }
        }
        return new ChangeEvent(op, row, sequence, system, written);
    }

    public void writeEvents(List<ChangeEvent> events, DataOutput out) throws IOException {
        out.writeInt(events.size());
        for (ChangeEvent e : events) {
            writeEvent(e, out);
        }
    }

    public List<ChangeEvent> readEvents(DataInput in) throws IOException {
        int n = in.readInt();
        List<ChangeEvent> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            events.add(readEvent(in));
        }
        return events;
    }

    public void writeEntry(TimelineEntry entry, DataOutput out) throws IOException {
        writeBytes(entry.sequence(), out);
        writeEvents(entry.events(), out);
        if (entry.state() == null) {
            out.writeByte(0);
        } else if (entry.stateIsLastEventRow()) {
            out.writeByte(1); // the common case with full rows: do not store the row twice
        } else {
            out.writeByte(2);
            writeRow(entry.state(), out);
        }
        writeBytes(entry.versionStart(), out);
        out.writeLong(entry.writtenAt());
    }

    public TimelineEntry readEntry(DataInput in) throws IOException {
        byte[] sequence = readBytes(in);
        List<ChangeEvent> events = readEvents(in);
        byte flag = in.readByte();
        Object[] state = flag == 0 ? null : flag == 1 ? events.get(events.size() - 1).row() : readRow(in);
        byte[] start = readBytes(in);
        return new TimelineEntry(sequence, events, state, start, in.readLong());
    }

    public void writeHead(BitemporalHead head, DataOutput out) throws IOException {
        writeBytes(head.latestSequence(), out);
        writeBytes(head.latestSystemSequence(), out);
        writeOptionalRow(head.state(), out);
        writeBytes(head.openStart(), out);
        writeBytes(head.openSystemStart(), out);
        writeBytes(head.floorSequence(), out);
        writeBytes(head.floorSystemSequence(), out);
    }

    public BitemporalHead readHead(DataInput in) throws IOException {
        byte[] latest = readBytes(in);
        byte[] latestSystem = readBytes(in);
        Object[] state = readOptionalRow(in);
        return new BitemporalHead(latest, latestSystem, state, readBytes(in), readBytes(in), readBytes(in), readBytes(in));
    }

    public void writeSnapshot(BitemporalSnapshot snapshot, DataOutput out) throws IOException {
        writeBytes(snapshot.floorSequence(), out);
        writeBytes(snapshot.floorSystemSequence(), out);
        writeOptionalRow(snapshot.seedState(), out);
        out.writeInt(snapshot.believed().size());
        for (BitemporalRow row : snapshot.believed()) {
            writeBytes(row.version().start(), out);
            writeBytes(row.version().end(), out);
            writeRow(row.version().row(), out);
            writeBytes(row.systemStart(), out);
            writeBytes(row.systemEnd(), out);
        }
    }

    public BitemporalSnapshot readSnapshot(DataInput in) throws IOException {
        byte[] floor = readBytes(in);
        byte[] floorSystem = readBytes(in);
        Object[] seed = readOptionalRow(in);
        int n = in.readInt();
        List<BitemporalRow> believed = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] start = readBytes(in);
            byte[] end = readBytes(in);
            Object[] row = readRow(in);
            believed.add(new BitemporalRow(new Version(start, end, row), readBytes(in), readBytes(in)));
        }
        return new BitemporalSnapshot(floor, floorSystem, seed, believed);
    }

    private void writeOptionalRow(Object[] row, DataOutput out) throws IOException {
        out.writeBoolean(row != null);
        if (row != null) {
            writeRow(row, out);
        }
    }

    private Object[] readOptionalRow(DataInput in) throws IOException {
        return in.readBoolean() ? readRow(in) : null;
    }

    // ---- rows and values

    public void writeRow(Object[] row, DataOutput out) throws IOException {
        for (int i = 0; i < types.size(); i++) {
            writeValue(types.get(i), row[i], out);
        }
    }

    public Object[] readRow(DataInput in) throws IOException {
        Object[] row = new Object[types.size()];
        for (int i = 0; i < row.length; i++) {
            row[i] = readValue(types.get(i), in);
        }
        return row;
    }

    public static void writeBytes(byte[] bytes, DataOutput out) throws IOException {
        if (bytes == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(bytes.length);
            out.write(bytes);
        }
    }

    public static byte[] readBytes(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    public static void writeValue(ColumnType type, Object v, DataOutput out) throws IOException {
        if (v == null) {
            out.writeByte(0);
            return;
        }
        out.writeByte(1);
        switch (type.kind()) {
            case BOOLEAN:
                out.writeBoolean((Boolean) v);
                break;
            case TINYINT:
                out.writeByte((Byte) v);
                break;
            case SMALLINT:
                out.writeShort((Short) v);
                break;
            case INT:
                out.writeInt((Integer) v);
                break;
            case BIGINT:
                out.writeLong((Long) v);
                break;
            case FLOAT:
                out.writeFloat((Float) v);
                break;
            case DOUBLE:
                out.writeDouble((Double) v);
                break;
            case DECIMAL: {
                BigDecimal d = (BigDecimal) v;
                writeBytes(d.unscaledValue().toByteArray(), out);
                out.writeInt(d.scale());
                break;
            }
            case STRING:
                writeString((String) v, out);
                break;
            case BYTES:
                writeBytes((byte[]) v, out);
                break;
            case DATE:
                out.writeLong(((LocalDate) v).toEpochDay());
                break;
            case TIME:
                out.writeLong(((LocalTime) v).toNanoOfDay());
                break;
            case TIMESTAMP: {
                LocalDateTime t = (LocalDateTime) v;
                out.writeLong(t.toEpochSecond(java.time.ZoneOffset.UTC));
                out.writeInt(t.getNano());
                break;
            }
            case TIMESTAMP_LTZ: {
                Instant t = (Instant) v;
                out.writeLong(t.getEpochSecond());
                out.writeInt(t.getNano());
                break;
            }
            case ROW: {
                Object[] fields = (Object[]) v;
                for (int i = 0; i < type.children().size(); i++) {
                    writeValue(type.children().get(i), fields[i], out);
                }
                break;
            }
            case ARRAY: {
                List<?> list = (List<?>) v;
                out.writeInt(list.size());
                for (Object x : list) {
                    writeValue(type.children().get(0), x, out);
                }
                break;
            }
            case MAP: {
                Map<?, ?> map = (Map<?, ?>) v;
                out.writeInt(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    writeValue(type.children().get(0), e.getKey(), out);
                    writeValue(type.children().get(1), e.getValue(), out);
                }
                break;
            }
            default:
                throw new IllegalArgumentException("Unsupported type " + type);
        }
    }

    public static Object readValue(ColumnType type, DataInput in) throws IOException {
        if (in.readByte() == 0) {
            return null;
        }
        switch (type.kind()) {
            case BOOLEAN:
                return in.readBoolean();
            case TINYINT:
                return in.readByte();
            case SMALLINT:
                return in.readShort();
            case INT:
                return in.readInt();
            case BIGINT:
                return in.readLong();
            case FLOAT:
                return in.readFloat();
            case DOUBLE:
                return in.readDouble();
            case DECIMAL: {
                byte[] unscaled = readBytes(in);
                return new BigDecimal(new BigInteger(unscaled), in.readInt());
            }
            case STRING:
                return readString(in);
            case BYTES:
                return readBytes(in);
            case DATE:
                return LocalDate.ofEpochDay(in.readLong());
            case TIME:
                return LocalTime.ofNanoOfDay(in.readLong());
            case TIMESTAMP: {
                long s = in.readLong();
                return LocalDateTime.ofEpochSecond(s, in.readInt(), java.time.ZoneOffset.UTC);
            }
            case TIMESTAMP_LTZ: {
                long s = in.readLong();
                return Instant.ofEpochSecond(s, in.readInt());
            }
            case ROW: {
                Object[] fields = new Object[type.children().size()];
                for (int i = 0; i < fields.length; i++) {
                    fields[i] = readValue(type.children().get(i), in);
                }
                return fields;
            }
            case ARRAY: {
                int n = in.readInt();
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(readValue(type.children().get(0), in));
                }
                return list;
            }
            case MAP: {
                int n = in.readInt();
                Map<Object, Object> map = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    Object k = readValue(type.children().get(0), in);
                    map.put(k, readValue(type.children().get(1), in));
                }
                return map;
            }
            default:
                throw new IllegalArgumentException("Unsupported type " + type);
        }
    }

    /** UTF-8 bytes with a length: writeUTF is limited to 64 KB. */
    private static void writeString(String s, DataOutput out) throws IOException {
        writeBytes(s.getBytes(java.nio.charset.StandardCharsets.UTF_8), out);
    }

    private static String readString(DataInput in) throws IOException {
        return new String(readBytes(in), java.nio.charset.StandardCharsets.UTF_8);
    }
}
