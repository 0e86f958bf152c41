package dev.autocdc.operators.flink.spec;

import dev.autocdc.operators.core.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Between Flink's internal data structures ({@link RowData}, {@link StringData}, ...) and the
 * core's plain Java values (see {@link ColumnType}), and from Flink logical types to core column
 * types.
 */
public final class TypeMapping {

    private TypeMapping() {}

    /** The core type of a Flink logical type; throws for types the engine does not carry. */
    public static ColumnType columnType(LogicalType t) {
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return ColumnType.of(ColumnType.Kind.BOOLEAN);
            case TINYINT:
                return ColumnType.of(ColumnType.Kind.TINYINT);
            case SMALLINT:
                return ColumnType.of(ColumnType.Kind.SMALLINT);
            case INTEGER:
                return ColumnType.of(ColumnType.Kind.INT);
            case BIGINT:
                return ColumnType.of(ColumnType.Kind.BIGINT);
            case FLOAT:
                return ColumnType.of(ColumnType.Kind.FLOAT);
            case DOUBLE:
                return ColumnType.of(ColumnType.Kind.DOUBLE);
            case DECIMAL:
                return ColumnType.of(ColumnType.Kind.DECIMAL);
            case CHAR:
            case VARCHAR:
                return ColumnType.of(ColumnType.Kind.STRING);
            case BINARY:
            case VARBINARY:
                return ColumnType.of(ColumnType.Kind.BYTES);
            case DATE:
                return ColumnType.of(ColumnType.Kind.DATE);
            case TIME_WITHOUT_TIME_ZONE:
                return ColumnType.of(ColumnType.Kind.TIME);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return ColumnType.of(ColumnType.Kind.TIMESTAMP);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return ColumnType.of(ColumnType.Kind.TIMESTAMP_LTZ);
            case ROW:
                {
                    RowType row = (RowType) t;
                    List<ColumnType> children = new ArrayList<>();
                    for (LogicalType c : row.getChildren()) {
                        children.add(columnType(c));
                    }
                    return ColumnType.row(row.getFieldNames(), children);
                }
            case ARRAY:
                return ColumnType.array(columnType(((ArrayType) t).getElementType()));
            case MAP:
                return ColumnType.map(
                        columnType(((MapType) t).getKeyType()),
                        columnType(((MapType) t).getValueType()));
            default:
                throw new IllegalArgumentException(
                        "Columns of type " + t + " are not supported by AUTO CDC yet");
        }
    }

    /** An internal value (as held in a RowData field) as a Java value. */
    public static Object toJava(LogicalType t, Object v) {
        if (v == null) {
            return null;
        }
        switch (t.getTypeRoot()) {
            case DECIMAL:
                return ((DecimalData) v).toBigDecimal();
            case CHAR:
            case VARCHAR:
                return v.toString();
            case DATE:
                return LocalDate.ofEpochDay((Integer) v);
            case TIME_WITHOUT_TIME_ZONE:
                return LocalTime.ofNanoOfDay(((Integer) v) * 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return ((TimestampData) v).toLocalDateTime();
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return ((TimestampData) v).toInstant();
            case BINARY:
            case VARBINARY:
                return ((byte[]) v).clone(); // the engine keeps it: never share an input's buffer
            case ROW:
                {
                    RowType row = (RowType) t;
                    RowData data = (RowData) v;
                    Object[] fields = new Object[row.getFieldCount()];
                    for (int i = 0; i < fields.length; i++) {
                        LogicalType ft = row.getTypeAt(i);
                        fields[i] =
                                toJava(ft, RowData.createFieldGetter(ft, i).getFieldOrNull(data));
                    }
                    return fields;
                }
            case ARRAY:
                {
                    LogicalType et = ((ArrayType) t).getElementType();
                    ArrayData data = (ArrayData) v;
                    ArrayData.ElementGetter getter = ArrayData.createElementGetter(et);
                    List<Object> list = new ArrayList<>(data.size());
                    for (int i = 0; i < data.size(); i++) {
                        list.add(toJava(et, getter.getElementOrNull(data, i)));
                    }
                    return list;
                }
            case MAP:
                {
                    MapType mt = (MapType) t;
                    MapData data = (MapData) v;
                    List<Object> keys =
                            (List<Object>) toJava(new ArrayType(mt.getKeyType()), data.keyArray());
                    List<Object> values =
                            (List<Object>)
                                    toJava(new ArrayType(mt.getValueType()), data.valueArray());
                    Map<Object, Object> map = new HashMap<>();
                    for (int i = 0; i < keys.size(); i++) {
                        map.put(keys.get(i), values.get(i));
                    }
                    return map;
                }
            default:
                return v;
        }
    }

    /** A Java value as the internal value of a RowData field of type {@code t}. */
    public static Object toInternal(LogicalType t, Object v) {
        if (v == null) {
            return null;
        }
        switch (t.getTypeRoot()) {
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) t;
                    DecimalData data =
                            DecimalData.fromBigDecimal(
                                    (BigDecimal) v, d.getPrecision(), d.getScale());
                    if (data == null) {
                        throw new IllegalArgumentException("Value " + v + " does not fit " + t);
                    }
                    return data;
                }
            case CHAR:
            case VARCHAR:
                return StringData.fromString((String) v);
            case DATE:
                return (int) ((LocalDate) v).toEpochDay();
            case TIME_WITHOUT_TIME_ZONE:
                return (int) (((LocalTime) v).toNanoOfDay() / 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return TimestampData.fromLocalDateTime((LocalDateTime) v);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return TimestampData.fromInstant((Instant) v);
            case BINARY:
            case VARBINARY:
                return ((byte[]) v).clone(); // output rows must not share the state's buffer
            case ROW:
                {
                    RowType row = (RowType) t;
                    Object[] fields = (Object[]) v;
                    GenericRowData data = new GenericRowData(fields.length);
                    for (int i = 0; i < fields.length; i++) {
                        data.setField(i, toInternal(row.getTypeAt(i), fields[i]));
                    }
                    return data;
                }
            case ARRAY:
                {
                    LogicalType et = ((ArrayType) t).getElementType();
                    List<?> list = (List<?>) v;
                    Object[] out = new Object[list.size()];
                    for (int i = 0; i < out.length; i++) {
                        out[i] = toInternal(et, list.get(i));
                    }
                    return new GenericArrayData(out);
                }
            case MAP:
                {
                    MapType mt = (MapType) t;
                    Map<Object, Object> out = new HashMap<>();
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                        out.put(
                                toInternal(mt.getKeyType(), e.getKey()),
                                toInternal(mt.getValueType(), e.getValue()));
                    }
                    return new GenericMapData(out);
                }
            default:
                return v;
        }
    }

    /** Flink type information of a key column's Java value (used for the keyBy key). */
    public static TypeInformation<?> keyTypeInfo(LogicalType t) {
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return Types.BOOLEAN;
            case TINYINT:
                return Types.BYTE;
            case SMALLINT:
                return Types.SHORT;
            case INTEGER:
                return Types.INT;
            case BIGINT:
                return Types.LONG;
            case FLOAT:
                return Types.FLOAT;
            case DOUBLE:
                return Types.DOUBLE;
            case DECIMAL:
                return Types.BIG_DEC;
            case CHAR:
            case VARCHAR:
                return Types.STRING;
            case BINARY:
            case VARBINARY:
                // an array hashes by identity, which Flink refuses as a key: the bytes as a
                // string of ISO-8859-1 characters, one per byte, which is equal when they are
                return Types.STRING;
            case DATE:
                return Types.LOCAL_DATE;
            case TIME_WITHOUT_TIME_ZONE:
                return Types.LOCAL_TIME;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return Types.LOCAL_DATE_TIME;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Types.INSTANT;
            default:
                throw new IllegalArgumentException(
                        "a key column is of type "
                                + t.asSummaryString()
                                + ", which cannot be a key; use a column of a scalar type"
                                + " (numbers, strings, booleans, dates, times, timestamps,"
                                + " bytes), or a key computed in a view");
        }
    }

    /** A value of a key column's type standing in for null (see {@code FlowKeySelector}). */
    public static Object nullKeyStandIn(LogicalType t) {
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return false;
            case TINYINT:
                return (byte) 0;
            case SMALLINT:
                return (short) 0;
            case INTEGER:
                return 0;
            case BIGINT:
                return 0L;
            case FLOAT:
                return 0f;
            case DOUBLE:
                return 0d;
            case DECIMAL:
                return BigDecimal.ZERO;
            case BINARY:
            case VARBINARY:
                return "";
            case DATE:
                return LocalDate.EPOCH;
            case TIME_WITHOUT_TIME_ZONE:
                return LocalTime.MIDNIGHT;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return LocalDateTime.of(1970, 1, 1, 0, 0);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return Instant.EPOCH;
            default:
                return "";
        }
    }
}
