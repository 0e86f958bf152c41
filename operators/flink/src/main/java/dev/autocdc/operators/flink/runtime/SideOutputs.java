package dev.autocdc.operators.flink.runtime;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.OutputTag;

/** The side outputs of a flow's operators, both of {@link DeadLetter}s. */
public final class SideOutputs {
    private SideOutputs() {}

    /** Events the engine cannot apply, with the reason (docs/bad-input.md). */
    public static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("auto-cdc-dead-letters", TypeInformation.of(DeadLetter.class));

    /**
     * Events that would change history already dropped by the history retention (reason {@value
     * DeadLetter#BEFORE_RETAINED_HISTORY}), and the rows of held snapshots.
     */
    public static final OutputTag<DeadLetter> LATE_EVENTS =
            new OutputTag<>("auto-cdc-late-events", TypeInformation.of(DeadLetter.class));
}
