package dev.autocdc.job.source;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Finds a field written twice in one object of a JSON record ({@code {"id": 26, "id": 27}}). Such a
 * record is ambiguous: Flink's JSON formats keep one of the values, other readers the other, so it
 * is bad input (semantics §11), never a row.
 *
 * <p>One pass over the bytes, at any depth, with no allocation once its buffers have grown: the
 * names of the open objects' fields are kept as offsets into the record, and each new name is
 * compared with those of its own object. Names are compared as written: a name with an escape is
 * not found equal to the same name without. A record that is not well-formed JSON is left to the
 * format.
 */
final class DuplicateFields implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Per field name of the open objects: its first byte and the byte after it. */
    private transient int[] names;

    /** Per open object or array: where its names start in {@link #names}; -1 for an array. */
    private transient int[] frames;

    /**
     * The first field written twice in one object, as its name, or null when there is none (or the
     * record is not JSON this scan can follow).
     */
    String duplicate(byte[] r) {
        if (names == null) {
            names = new int[32];
            frames = new int[8];
        }
        int depth = 0;
        int count = 0; // ints used in names
        boolean expectName = false;
        for (int i = 0; i < r.length; i++) {
            byte b = r[i];
            if (b == '"') {
                int end = stringEnd(r, i + 1);
                if (end < 0) {
                    return null;
                }
                if (expectName && depth > 0 && frames[depth - 1] >= 0) {
                    for (int n = frames[depth - 1]; n < count; n += 2) {
                        if (Arrays.equals(r, names[n], names[n + 1], r, i + 1, end)) {
                            return new String(r, i + 1, end - i - 1, StandardCharsets.UTF_8);
                        }
                    }
                    names = grow(names, count + 2);
                    names[count++] = i + 1;
                    names[count++] = end;
                }
                expectName = false;
                i = end;
            } else if (b == '{' || b == '[') {
                frames = grow(frames, depth + 1);
                frames[depth++] = b == '{' ? count : -1;
                expectName = b == '{';
            } else if (b == '}' || b == ']') {
                if (depth == 0) {
                    return null;
                }
                depth--;
                if (frames[depth] >= 0) {
                    count = frames[depth];
                }
            } else if (b == ',') {
                expectName = depth > 0 && frames[depth - 1] >= 0;
            }
        }
        return null;
    }

    /** The index of the quote that closes a string whose content starts at {@code from}; -1. */
    private static int stringEnd(byte[] r, int from) {
        for (int i = from; i < r.length; i++) {
            if (r[i] == '\\') {
                i++;
            } else if (r[i] == '"') {
                return i;
            }
        }
        return -1;
    }

    private static int[] grow(int[] a, int size) {
        return size <= a.length ? a : Arrays.copyOf(a, Math.max(size, a.length * 2));
    }
}
