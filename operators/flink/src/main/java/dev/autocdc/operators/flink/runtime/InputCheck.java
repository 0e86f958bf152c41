package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.flink.spec.EngineSpec;
import java.io.Serializable;
import org.apache.flink.table.data.RowData;

/**
 * The engine's refusals that need no state ({@code EventDecoder#refusal}: a failed CAST, a null
 * key, a null sequence, a bad COLUMNS TO UPDATE list), for a job that checks its rows before the
 * keyed exchange, where it still has each record's bytes to put in the dead letter. The same rules
 * as the engine's, which checks again and finds nothing. Truncates pass: {@code AutoCdc.apply}
 * routes them to every instance.
 */
public final class InputCheck implements Serializable {
    private static final long serialVersionUID = 1L;

    private final EngineSpec spec;
    private transient EventDecoder decoder;

    /**
     * @param spec the flow, whose {@link EngineSpec#inputType()} the checked rows have
     */
    public InputCheck(EngineSpec spec) {
        this.spec = spec;
    }

    /**
     * The row's dead letter, as the engine would write it; null when the row passes. An end row of
     * a flow from snapshots passes: it is no data, and needs no key.
     */
    public DeadLetter check(RowData row) {
        if (EventDecoder.isSnapshotEnd(spec, row)) {
            return null;
        }
        if (decoder == null) {
            decoder = new EventDecoder(spec, null); // refusal() counts nothing
        }
        return decoder.refusal(row, true);
    }
}
