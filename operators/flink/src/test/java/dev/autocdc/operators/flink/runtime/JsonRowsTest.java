package dev.autocdc.operators.flink.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * The one JSON writer: target rows ({@code --materialize}), dead letters and their payloads, type
 * by type, as Flink's {@code json} format writes them; values without a type by their class.
 */
class JsonRowsTest {
    /** One value as it is written in an object. */
    private static String json(LogicalType type, Object value) {
        String object = JsonRows.object(List.of("v"), List.of(type), new Object[] {value});
        assertThat(object).startsWith("{\"v\": ").endsWith("}");
        return object.substring("{\"v\": ".length(), object.length() - 1);
    }

    @Test
    void rendersEveryTypeAsTheCliPromises() {
        assertThat(json(new IntType(), 42)).isEqualTo("42");
        assertThat(json(new BigIntType(), 1L << 40)).isEqualTo("1099511627776");
        assertThat(json(new DecimalType(10, 3), new BigDecimal("12.500"))).isEqualTo("12.500");
        assertThat(json(new DoubleType(), 1.5d)).isEqualTo("1.5");
        assertThat(json(new BooleanType(), true)).isEqualTo("true");
        assertThat(json(VarCharType.STRING_TYPE, "say \"hi\"\n"))
                .isEqualTo("\"say \\\"hi\\\"\\n\"");
        assertThat(json(new DateType(), LocalDate.of(2025, 1, 2))).isEqualTo("\"2025-01-02\"");
        assertThat(json(new TimeType(), LocalTime.of(9, 5, 7))).isEqualTo("\"09:05:07\"");
        assertThat(json(new TimeType(3), LocalTime.of(9, 5, 7, 120_000_000)))
                .isEqualTo("\"09:05:07.12\"");
        assertThat(json(new TimestampType(0), LocalDateTime.of(2025, 3, 1, 9, 0)))
                .isEqualTo("\"2025-03-01 09:00:00\"");
        assertThat(json(new TimestampType(6), LocalDateTime.of(2025, 3, 1, 9, 0, 0, 500_000)))
                .isEqualTo("\"2025-03-01 09:00:00.0005\"");
        assertThat(json(new LocalZonedTimestampType(3), Instant.parse("2025-03-01T09:00:00.250Z")))
                .isEqualTo("\"2025-03-01 09:00:00.25Z\"");
        assertThat(json(new VarBinaryType(10), new byte[] {1, 2, (byte) 255}))
                .isEqualTo("\"AQL/\"");
        assertThat(
                        json(
                                RowType.of(
                                        new LogicalType[] {new IntType(), VarCharType.STRING_TYPE},
                                        new String[] {"a", "b"}),
                                new Object[] {1, null}))
                .isEqualTo("{\"a\": 1, \"b\": null}");
        assertThat(json(new ArrayType(new IntType()), List.of(1, 2))).isEqualTo("[1, 2]");
        assertThat(json(new MapType(VarCharType.STRING_TYPE, new IntType()), Map.of("k", 3)))
                .isEqualTo("{\"k\": 3}");
        assertThat(json(new IntType(), null)).isEqualTo("null");
    }

    @Test
    void untypedValuesAreWrittenByTheirClass() {
        assertThat(
                        JsonRows.object(
                                List.of(
                                        "n", "d", "nan", "bytes", "row", "list", "map", "text",
                                        "none"),
                                new Object[] {
                                    7L,
                                    new BigDecimal("1E+3"),
                                    Double.NaN,
                                    new byte[] {1, 2, (byte) 255},
                                    new Object[] {1, "a"},
                                    Arrays.asList(1, null),
                                    Map.of("k", true),
                                    "tab\there \u0001",
                                    null
                                }))
                .isEqualTo(
                        "{\"n\": 7, \"d\": 1000, \"nan\": \"NaN\", \"bytes\": \"AQL/\", \"row\":"
                            + " [1, \"a\"], \"list\": [1, null], \"map\": {\"k\": true}, \"text\":"
                            + " \"tab\\there \\u0001\", \"none\": null}");
        assertThat(JsonRows.object(List.of(), new Object[0])).isEqualTo("{}");
        assertThat(
                        JsonRows.object(
                                List.of("t"),
                                new Object[] {LocalDateTime.of(2025, 3, 1, 9, 0, 0, 500_000_000)}))
                .isEqualTo("{\"t\": \"2025-03-01 09:00:00.5\"}");
    }
}
