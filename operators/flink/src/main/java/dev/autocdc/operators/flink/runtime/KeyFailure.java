package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.flink.spec.EngineSpec;
import java.util.Arrays;
import org.apache.flink.types.Row;

/**
 * A failure of one key's work in a flow (a state value that does not read, an engine invariant
 * broken), named by the flow and the key, with every message of the cause chain: the message that
 * reaches a user's log names where to look. The key is given as its columns, or read from an event
 * (its key columns) or from a Flink key ({@code FlowKeySelector}: the value, or a Row of them).
 */
final class KeyFailure {
    private final String flow;
    private final int[] keyIndexes;

    KeyFailure(EngineSpec spec) {
        this.flow = spec.flow().name();
        this.keyIndexes = spec.flow().keyIndexes();
    }

    /** The failure at the key of these columns. */
    IllegalStateException of(Object[] key, Exception cause) {
        StringBuilder message = new StringBuilder(where(key));
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t.getMessage() != null && message.indexOf(t.getMessage()) < 0) {
                message.append(": ").append(t.getMessage());
            }
        }
        return new IllegalStateException(message.toString(), cause);
    }

    /** The failure at an event's key. */
    IllegalStateException of(ChangeEvent event, Exception cause) {
        return of(keyOf(event), cause);
    }

    /** The failure at a Flink key. */
    IllegalStateException ofFlinkKey(Object flinkKey, Exception cause) {
        return of(columns(flinkKey), cause);
    }

    /** "AUTO CDC flow {name}, key {columns}", for an event's key. */
    String where(ChangeEvent event) {
        return where(keyOf(event));
    }

    private String where(Object[] key) {
        return "AUTO CDC flow " + flow + ", key " + Arrays.deepToString(key);
    }

    private Object[] keyOf(ChangeEvent event) {
        Object[] key = new Object[keyIndexes.length];
        for (int i = 0; i < key.length; i++) {
            key[i] = event.row()[keyIndexes[i]];
        }
        return key;
    }

    private static Object[] columns(Object flinkKey) {
        if (flinkKey instanceof Row row) {
            Object[] key = new Object[row.getArity()];
            for (int i = 0; i < key.length; i++) {
                key[i] = row.getField(i);
            }
            return key;
        }
        return new Object[] {flinkKey};
    }
}
