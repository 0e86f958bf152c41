package dev.autocdc.operators.core;

/**
 * The rules a flow definition as written must meet before any schema is known, checked by {@link
 * AutoCdcFlow.Builder#build}: KEYS and SEQUENCE BY are given, a flow from snapshots has none of the
 * clauses that make no sense for whole snapshots, and only a flow from snapshots has APPLY AS
 * SNAPSHOT END WHEN (semantics §10). A broken rule is a {@link FlowDefinitionException} naming the
 * clause. Whatever needs the source's columns is the planner's.
 */
final class AutoCdcFlowRules {

    private AutoCdcFlowRules() {}

    static void check(AutoCdcFlow.Builder b) {
        if (b.keys.isEmpty()) {
            throw new FlowDefinitionException("KEYS", "flow " + b.name + " needs KEYS (col, ...)");
        }
        if (b.sequenceBy.isEmpty()) {
            throw new FlowDefinitionException(
                    "SEQUENCE BY", "flow " + b.name + " needs SEQUENCE BY col");
        }
        if (b.fromSnapshot) {
            refuseInSnapshotFlow(b, "APPLY AS DELETE WHEN", b.applyAsDeletes != null);
            refuseInSnapshotFlow(b, "APPLY AS TRUNCATE WHEN", b.applyAsTruncates != null);
            refuseInSnapshotFlow(
                    b,
                    "IGNORE NULL UPDATES",
                    b.ignoreNullUpdates
                            || b.ignoreNullUpdatesColumnList != null
                            || b.ignoreNullUpdatesExceptColumnList != null);
            refuseInSnapshotFlow(b, "COLUMNS TO UPDATE", b.columnsToUpdate != null);
        } else if (b.applyAsSnapshotEnd != null) {
            throw new FlowDefinitionException(
                    "APPLY AS SNAPSHOT END WHEN",
                    "flow "
                            + b.name
                            + " reads changes (FROM STREAM); end rows belong to a flow from"
                            + " snapshots: write FROM SNAPSHOT("
                            + b.source
                            + ") or remove the clause");
        }
    }

    /** semantics §10: these clauses make no sense for whole snapshots. */
    private static void refuseInSnapshotFlow(AutoCdcFlow.Builder b, String clause, boolean given) {
        if (given) {
            throw new FlowDefinitionException(
                    clause,
                    "flow "
                            + b.name
                            + " reads whole snapshots (FROM SNAPSHOT), where "
                            + clause
                            + " has no meaning: a key missing from a snapshot is deleted, and"
                            + " each snapshot row is the whole row; remove the clause, or read"
                            + " a change feed with FROM STREAM("
                            + b.source
                            + ")");
        }
    }
}
