package dev.autocdc.operators.core;

import static dev.autocdc.operators.core.ValueCodec.readBytes;
import static dev.autocdc.operators.core.ValueCodec.readPresent;
import static dev.autocdc.operators.core.ValueCodec.readVarInt;
import static dev.autocdc.operators.core.ValueCodec.readVarLong;
import static dev.autocdc.operators.core.ValueCodec.writeBytes;
import static dev.autocdc.operators.core.ValueCodec.writePresent;
import static dev.autocdc.operators.core.ValueCodec.writeVarInt;
import static dev.autocdc.operators.core.ValueCodec.writeVarLong;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The value formats of the engine's per-key state, over plain {@link DataOutput} / {@link
 * DataInput}: the layouts of rows, events and timeline entries that the Flink module's serializers
 * (one per stored type, each with its own layout version) are built of. A change here changes every
 * stored layout: it needs a new {@link #FORMAT_VERSION}, a new version of each serializer, and a
 * reader for the old one. The stored states of SCD2 entries are what {@link Fold} computes, and a
 * late event's refold stops where they match it again ({@link Scd2Engine}): a change to what the
 * fold computes is a change of the format too.
 *
 * <p>Format 2 is compact, since state size and RocksDB write volume follow it directly. Counts and
 * lengths are unsigned varints, byte strings and values are as {@link ValueCodec} writes them.
 * Layouts:
 *
 * <ul>
 *   <li>row: a null bitmap (one bit per base column, in flow order), then the present values, each
 *       without its flag;
 *   <li>event: a header byte (bits 0-1 the op, bit 2 "same sequence as its entry", bit 3 "has a
 *       system sequence", bit 4 "has COLUMNS TO UPDATE"), the sequence unless bit 2, the system
 *       sequence if bit 3, the row, the COLUMNS TO UPDATE bitmap if bit 4;
 *   <li>timeline entry: sequence, event count and events, a flags byte (bits 0-1 the state: 0
 *       absent, 1 the last event's row, 2 explicit row follows; bits 2-3 the version start: 0
 *       absent, 1 the entry's own sequence, 2 explicit bytes follow; bit 4 "believed since"
 *       follows), then the explicit row, the explicit start, the time it was written (ms, varint; 0
 *       when no retention needs it), and the system start of the believed row of the version that
 *       ends at this entry if bit 4 (bitemporal beliefs only);
 *   <li>decisive events (SCD1): count then events;
 *   <li>bitemporal head: latest system sequence, the open version's system start, floor sequence,
 *       floor system sequence (each a byte string, null when unset);
 *   <li>bitemporal snapshot: floor sequence, floor system sequence, seed flag + row, count, then
 *       per believed row: start, end, row, system start, system end.
 * </ul>
 *
 * A row, or a COLUMNS TO UPDATE bitmap, shorter than the columns is written as if null (false)
 * after its end: the restore of a flow that added columns after its last one migrates stored values
 * so, read by the previous columns' codec and written by this one.
 *
 * <p>Format 1 (fixed-width, pre-release builds only) has no reader: its savepoints cannot be
 * restored.
 */
public final class StateCodec {
    public static final int FORMAT_VERSION = 2;

    /** The ops by their two header bits ({@code Op.values()} copies its array on every call). */
    private static final Op[] OPS = Op.values();

    private final List<ColumnType> types;

    public StateCodec(List<ColumnType> types) {
        this.types = List.copyOf(types);
    }

    /** Whether {@code other} reads and writes the same columns as this codec. */
    public boolean sameColumns(StateCodec other) {
        return types.equals(other.types);
    }

    // ---- events and entries

    public void writeEvent(ChangeEvent e, DataOutput out) throws IOException {
        writeEvent(e, null, out);
    }

    /** Writes an event, leaving out its sequence when it equals {@code context} (its entry's). */
    private void writeEvent(ChangeEvent e, byte[] context, DataOutput out) throws IOException {
        boolean sameSequence = context != null && Arrays.equals(context, e.sequence());
        boolean[] written = e.columnsToUpdate();
        out.writeByte(
                e.op().ordinal()
                        | (sameSequence ? 4 : 0)
                        | (e.systemSequence() != null ? 8 : 0)
                        | (written != null ? 16 : 0));
        if (!sameSequence) {
            writeBytes(e.sequence(), out);
        }
        if (e.systemSequence() != null) {
            writeBytes(e.systemSequence(), out);
        }
        writeRow(e.row(), out);
        if (written != null) {
            writeBitmap(written, types.size(), out);
        }
    }

    public ChangeEvent readEvent(DataInput in) throws IOException {
        return readEvent(null, in);
    }

    private ChangeEvent readEvent(byte[] context, DataInput in) throws IOException {
        int header = in.readUnsignedByte();
        Op op = OPS[header & 3];
        byte[] sequence = (header & 4) != 0 ? context : readBytes(in);
        byte[] system = (header & 8) != 0 ? readBytes(in) : null;
        Object[] row = readRow(in);
        boolean[] written = (header & 16) != 0 ? readBitmap(types.size(), in) : null;
        return new ChangeEvent(op, row, sequence, system, written);
    }

    public void writeEvents(List<ChangeEvent> events, DataOutput out) throws IOException {
        writeEvents(events, null, out);
    }

    private void writeEvents(List<ChangeEvent> events, byte[] context, DataOutput out)
            throws IOException {
        writeVarInt(events.size(), out);
        for (ChangeEvent e : events) {
            writeEvent(e, context, out);
        }
    }

    public List<ChangeEvent> readEvents(DataInput in) throws IOException {
        return readEvents(null, in);
    }

    private List<ChangeEvent> readEvents(byte[] context, DataInput in) throws IOException {
        int n = readVarInt(in);
        if (n == 1) { // most entries: an immutable list of one, which TimelineEntry keeps as it is
            return List.of(readEvent(context, in));
        }
        List<ChangeEvent> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            events.add(readEvent(context, in));
        }
        return events;
    }

    public void writeEntry(TimelineEntry entry, DataOutput out) throws IOException {
        byte[] sequence = entry.sequence();
        writeBytes(sequence, out);
        writeEvents(entry.events(), sequence, out);
        int stateKind = entry.state() == null ? 0 : entry.stateIsLastEventRow() ? 1 : 2;
        byte[] start = entry.versionStart();
        int startKind = start == null ? 0 : Arrays.equals(start, sequence) ? 1 : 2;
        byte[] since = entry.believedSince();
        out.writeByte(stateKind | startKind << 2 | (since == null ? 0 : 16));
        if (stateKind == 2) {
            writeRow(
                    entry.state(),
                    out); // the common case with full rows does not store the row twice
        }
        if (startKind == 2) {
            writeBytes(start, out);
        }
        writeVarLong(entry.writtenAt(), out);
        if (since != null) {
            writeBytes(since, out); // bitemporal beliefs only: SCD2 entries never carry it
        }
    }

    public TimelineEntry readEntry(DataInput in) throws IOException {
        byte[] sequence = readBytes(in);
        List<ChangeEvent> events = readEvents(sequence, in);
        int flags = in.readUnsignedByte();
        int stateKind = flags & 3;
        int startKind = flags >> 2 & 3;
        Object[] state =
                stateKind == 0
                        ? null
                        : stateKind == 1 ? events.get(events.size() - 1).row() : readRow(in);
        byte[] start = startKind == 0 ? null : startKind == 1 ? sequence : readBytes(in);
        long writtenAt = readVarLong(in);
        byte[] since = (flags & 16) == 0 ? null : readBytes(in);
        return new TimelineEntry(sequence, events, state, start, writtenAt, since);
    }

    public void writeHead(BitemporalHead head, DataOutput out) throws IOException {
        writeBytes(head.latestSystemSequence(), out);
        writeBytes(head.openSystemStart(), out);
        writeBytes(head.floorSequence(), out);
        writeBytes(head.floorSystemSequence(), out);
    }

    public BitemporalHead readHead(DataInput in) throws IOException {
        return new BitemporalHead(readBytes(in), readBytes(in), readBytes(in), readBytes(in));
    }

    public void writeSnapshot(BitemporalSnapshot snapshot, DataOutput out) throws IOException {
        writeBytes(snapshot.floorSequence(), out);
        writeBytes(snapshot.floorSystemSequence(), out);
        writeOptionalRow(snapshot.seedState(), out);
        writeVarInt(snapshot.believed().size(), out);
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
        int n = readVarInt(in);
        List<BitemporalRow> believed = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte[] start = readBytes(in);
            byte[] end = readBytes(in);
            Object[] row = readRow(in);
            believed.add(
                    new BitemporalRow(new Version(start, end, row), readBytes(in), readBytes(in)));
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

    /**
     * Writes a row of this codec's columns; a shorter row (stored before columns were added, and
     * read by the previous columns' codec) is written with nulls after its end.
     */
    public void writeRow(Object[] row, DataOutput out) throws IOException {
        int n = types.size();
        for (int from = 0; from < n; from += 8) {
            int bits = 0;
            for (int i = from; i < Math.min(n, from + 8); i++) {
                if (i >= row.length || row[i] == null) {
                    bits |= 1 << (i - from);
                }
            }
            out.writeByte(bits);
        }
        for (int i = 0; i < Math.min(n, row.length); i++) {
            if (row[i] != null) {
                writePresent(types.get(i), row[i], out);
            }
        }
    }

    public Object[] readRow(DataInput in) throws IOException {
        int n = types.size();
        if (n <= 8) { // the null bitmap in one byte, read in place (no array per row)
            int nulls = in.readUnsignedByte();
            Object[] row = new Object[n];
            for (int i = 0; i < n; i++) {
                if ((nulls & 1 << i) == 0) {
                    row[i] = readPresent(types.get(i), in);
                }
            }
            return row;
        }
        boolean[] isNull = readBitmap(n, in);
        Object[] row = new Object[n];
        for (int i = 0; i < n; i++) {
            if (!isNull[i]) {
                row[i] = readPresent(types.get(i), in);
            }
        }
        return row;
    }

    /** Writes {@code n} bits, false after the end of a shorter {@code bits}. */
    private static void writeBitmap(boolean[] bits, int n, DataOutput out) throws IOException {
        for (int from = 0; from < n; from += 8) {
            int b = 0;
            for (int i = from; i < Math.min(n, from + 8); i++) {
                if (i < bits.length && bits[i]) {
                    b |= 1 << (i - from);
                }
            }
            out.writeByte(b);
        }
    }

    private static boolean[] readBitmap(int n, DataInput in) throws IOException {
        boolean[] bits = new boolean[n];
        for (int from = 0; from < n; from += 8) {
            int b = in.readUnsignedByte();
            for (int i = from; i < Math.min(n, from + 8); i++) {
                bits[i] = (b & 1 << (i - from)) != 0;
            }
        }
        return bits;
    }
}
