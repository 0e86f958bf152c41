package dev.autocdc.operators.flink.state;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.operators.KeyContext;

/**
 * A value state per key of a key context, in a map, recording every access that reaches it: the
 * state a {@link WriteBackCache} wraps in its tests. For tests.
 */
public final class RecordingState implements ValueState<String>, KeyContext {
    public final Map<Object, String> stored = new HashMap<>();
    public final List<String> accesses = new ArrayList<>();
    private Object current;

    @Override
    public void setCurrentKey(Object key) {
        current = key;
    }

    @Override
    public Object getCurrentKey() {
        return current;
    }

    @Override
    public String value() {
        accesses.add("read " + current);
        return stored.get(current);
    }

    @Override
    public void update(String value) {
        accesses.add("write " + current + "=" + value);
        stored.put(current, value);
    }

    @Override
    public void clear() {
        accesses.add("clear " + current);
        stored.remove(current);
    }
}
