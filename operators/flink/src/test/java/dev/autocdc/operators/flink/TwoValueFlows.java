package dev.autocdc.operators.flink;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.reference.ReferenceModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The flow of the key-by-key property tests of loading and erasing: key {@code id INT}, values
 * {@code v1, v2 STRING}, INT sequences, a delete flag and, when erasable, an erase flag; its input
 * rows and its table as the reference model gives it. For tests.
 */
final class TwoValueFlows {
    private TwoValueFlows() {}

    /** The flow's spec builder; an erasable flow's sequences may be null (an erasure has none). */
    static EngineSpec.Builder builder(String name, TargetType type, boolean erasable) {
        List<LogicalType> types =
                new ArrayList<>(
                        List.of(
                                new IntType(false),
                                VarCharType.STRING_TYPE,
                                VarCharType.STRING_TYPE,
                                new IntType(erasable)));
        List<String> names = new ArrayList<>(List.of("id", "v1", "v2", "__seq"));
        if (type == TargetType.BITEMPORAL) {
            types.add(new IntType(erasable));
            names.add("__sys");
        }
        types.add(new BooleanType());
        names.add("__delete");
        if (erasable) {
            types.add(new BooleanType());
            names.add("__erase");
        }
        return EngineSpec.builder(
                        name,
                        type,
                        RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0])))
                .keys("id")
                .blockSize(2); // small blocks: a key's history spans several
    }

    /** The event as an input row of the flow (an erasable flow's: not an erasure). */
    static Object[] inputRow(ReferenceModel.Event e, TargetType type, boolean erasable) {
        List<Object> row =
                new ArrayList<>(
                        Arrays.asList(e.key(), e.values().get(0), e.values().get(1), e.seq()));
        if (type == TargetType.BITEMPORAL) {
            row.add(e.sys());
        }
        row.add(e.kind() == ReferenceModel.Kind.DELETE);
        if (erasable) {
            row.add(false);
        }
        return row.toArray();
    }

    /** The reference model's table of the events. */
    static Set<List<Object>> reference(
            TargetType type, boolean ignoreNull, List<ReferenceModel.Event> events) {
        ReferenceModel.Options options =
                new ReferenceModel.Options(
                        List.of("v1", "v2"),
                        ignoreNull ? Set.of("v1", "v2") : Set.of(),
                        false,
                        null,
                        null,
                        null);
        Set<List<Object>> rows =
                switch (type) {
                    case SCD1 -> ReferenceModel.scd1(events, options);
                    case SCD2 -> ReferenceModel.scd2(events, options);
                    default -> ReferenceModel.bitemporal(events, options);
                };
        return rows.stream().map(ArrayList::new).collect(Collectors.toSet());
    }

    /** A random event of {@code key}: values from a, b and null, sequences 1 to {@code maxSeq}. */
    static ReferenceModel.Event randomEvent(
            java.util.Random random, TargetType type, int key, int maxSeq) {
        String[] domain = {"a", "b", null};
        return new ReferenceModel.Event(
                key,
                1 + random.nextInt(maxSeq),
                type == TargetType.BITEMPORAL ? 1 + random.nextInt(maxSeq) : null,
                random.nextInt(6) == 0 ? ReferenceModel.Kind.DELETE : ReferenceModel.Kind.UPSERT,
                Arrays.asList(domain[random.nextInt(3)], domain[random.nextInt(3)]),
                null);
    }
}
