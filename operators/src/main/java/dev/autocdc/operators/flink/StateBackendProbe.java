package dev.autocdc.operators.flink;

import java.lang.reflect.Field;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.KeyedStateStore;

/**
 * Finds out whether the keyed state backend iterates a MapState in serialized-key order (RocksDB,
 * ForSt) or in hash order (the heap backend). The engine walks a key's history newest-first and stops
 * early only when the order is guaranteed; otherwise it reads and sorts (correct on every backend).
 * Flink has no public API for this, so the probe reads the runtime context's keyed state store, and
 * answers "not ordered" whenever it cannot tell.
 */
final class StateBackendProbe {

    private StateBackendProbe() {
    }

    static boolean iteratesInKeyOrder(RuntimeContext context) {
        String id = backendIdentifier(context);
        return id != null && (id.toLowerCase().contains("rocksdb") || id.toLowerCase().contains("forst"));
    }

    static String backendIdentifier(RuntimeContext context) {
        try {
            Class<?> c = context.getClass();
            while (c != null) {
                for (Field f : c.getDeclaredFields()) {
                    if (KeyedStateStore.class.isAssignableFrom(f.getType())) {
                        f.setAccessible(true);
                        KeyedStateStore store = (KeyedStateStore) f.get(context);
                        return store == null ? null : store.getBackendTypeIdentifier();
                    }
                }
                c = c.getSuperclass();
            }
        } catch (RuntimeException | IllegalAccessException | LinkageError e) {
            return null;
        }
        return null;
    }
}
