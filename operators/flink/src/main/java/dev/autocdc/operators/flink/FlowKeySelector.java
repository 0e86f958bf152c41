package dev.autocdc.operators.flink;

import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.TypeMapping;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.Row;

/**
 * The business key of an engine input row (semantics §1 KEYS), for {@code keyBy} in front of {@link
 * AutoCdcFunction}: the key column's Java value when there is one key column, else a {@link Row} of
 * them; BYTES as a string (see {@link TypeMapping#keyTypeInfo}).
 */
public final class FlowKeySelector
        implements KeySelector<RowData, Object>, ResultTypeQueryable<Object> {
    private static final long serialVersionUID = 1L;

    private final int[] fields;
    private final LogicalType[] types;
    private final String[] names;
    private transient RowData.FieldGetter[] getters;

    public FlowKeySelector(EngineSpec spec) {
        this(spec, spec.baseFields(), false);
    }

    /**
     * The key of rows whose base column {@code i} is field {@code baseFields[i]}; {@code nullable}:
     * read as nullable whatever the flow's type says (a null key gets the stand-in).
     */
    private FlowKeySelector(EngineSpec spec, int[] baseFields, boolean nullable) {
        int[] keys = spec.flow().keyIndexes();
        this.fields = new int[keys.length];
        this.types = new LogicalType[keys.length];
        this.names = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            fields[i] = baseFields[keys[i]];
            LogicalType type = spec.inputType().getTypeAt(spec.baseFields()[keys[i]]);
            types[i] = nullable ? type.copy(true) : type;
            names[i] = spec.inputType().getFieldNames().get(spec.baseFields()[keys[i]]);
        }
    }

    /**
     * The key of target rows (and of {@link HistoryLoader#historyType} rows), whose base columns
     * come first: the same key, of the same type, as the flow's input rows have.
     */
    public static FlowKeySelector ofTargetRows(EngineSpec spec) {
        int[] identity = new int[spec.flow().columnCount()];
        for (int i = 0; i < identity.length; i++) {
            identity[i] = i;
        }
        return new FlowKeySelector(spec, identity, true);
    }

    @Override
    public Object getKey(RowData row) {
        if (getters == null) {
            getters = new RowData.FieldGetter[fields.length];
            for (int i = 0; i < fields.length; i++) {
                getters[i] = RowData.createFieldGetter(types[i], fields[i]);
            }
        }
        if (fields.length == 1) {
            Object v = normalized(TypeMapping.toJava(types[0], getters[0].getFieldOrNull(row)));
            // Flink keys cannot be null. A null key is dead-lettered before any state of its key is
            // touched, so this stand-in never meets a real key's state.
            return v != null ? v : TypeMapping.nullKeyStandIn(types[0]);
        }
        Row key = new Row(fields.length);
        for (int i = 0; i < fields.length; i++) {
            key.setField(
                    i, normalized(TypeMapping.toJava(types[i], getters[i].getFieldOrNull(row))));
        }
        return key;
    }

    @Override
    @SuppressWarnings("unchecked")
    public TypeInformation<Object> getProducedType() {
        TypeInformation<?>[] infos = new TypeInformation<?>[types.length];
        for (int i = 0; i < types.length; i++) {
            infos[i] = TypeMapping.keyTypeInfo(types[i]);
        }
        // one key column: its own type (cheap to hash and serialize); several: a Row
        return (TypeInformation<Object>)
                (types.length == 1 ? infos[0] : new RowTypeInfo(infos, names));
    }

    private static Object normalized(Object v) {
        if (v instanceof Double && (Double) v == 0.0) {
            return 0.0d; // -0.0 and 0.0 are the same key (IS NOT DISTINCT FROM)
        }
        if (v instanceof Float && (Float) v == 0.0f) {
            return 0.0f;
        }
        if (v instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.ISO_8859_1); // see TypeMapping.keyTypeInfo
        }
        return v;
    }
}
