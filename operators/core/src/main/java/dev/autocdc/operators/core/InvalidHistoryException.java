package dev.autocdc.operators.core;

/**
 * A stored history that no flow of its shape makes ({@link HistoryEvents}): the message names the
 * first bad row and what is wrong with it.
 */
public final class InvalidHistoryException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient HistoryEvents.Row row;

    public InvalidHistoryException(HistoryEvents.Row row, String problem) {
        super("not a valid history at row " + row + ": " + problem);
        this.row = row;
    }

    /** The first bad row. */
    public HistoryEvents.Row row() {
        return row;
    }
}
