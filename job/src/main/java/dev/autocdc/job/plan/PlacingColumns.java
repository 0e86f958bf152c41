package dev.autocdc.job.plan;

import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.flink.spec.FlowMapping;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The source columns that place a row of a flow from snapshots: its keys, its SEQUENCE BY and
 * SYSTEM SEQUENCE BY columns (its snapshot), and every column its APPLY AS SNAPSHOT END WHEN
 * condition names. A row whose value in one of them is unreadable cannot say which key or snapshot
 * it belongs to; a row whose other values are unreadable still can, and holds its key there (docs
 * /snapshots.md). A column is taken as named by the condition wherever its name appears in it as a
 * word, in any case: a name inside a string literal counts too, which only ever holds fewer rows.
 */
final class PlacingColumns {
    private PlacingColumns() {}

    /** The placing columns of {@code flow} over the source's columns; null for a change flow. */
    static Set<String> of(AutoCdcFlow flow, List<String> sourceColumns) {
        if (!flow.fromSnapshot()) {
            return null;
        }
        List<String> named = new ArrayList<>(flow.keys());
        named.addAll(flow.sequenceBy());
        if (flow.systemSequenceBy() != null) {
            named.add(flow.systemSequenceBy());
        }
        Set<String> placing = new HashSet<>();
        for (String name : named) {
            try {
                placing.add(FlowMapping.resolve(sourceColumns, name, "KEYS"));
            } catch (FlowDefinitionException e) {
                // not a source column: planning the flow's mapping names the clause and the fix
            }
        }
        String end = flow.applyAsSnapshotEnd();
        if (end != null) {
            for (String c : sourceColumns) {
                if (Pattern.compile(
                                "(?<![\\p{L}\\p{N}_])"
                                        + Pattern.quote(c.toLowerCase(Locale.ROOT))
                                        + "(?![\\p{L}\\p{N}_])")
                        .matcher(end.toLowerCase(Locale.ROOT))
                        .find()) {
                    placing.add(c);
                }
            }
        }
        return placing;
    }
}
