package dev.autocdc.udfs;

/**
 * {@code BELIEVED_AT(system_start, system_end, at)}: {@link ValidAt VALID_AT} under the name that
 * reads right on a bitemporal table's system columns, "was this row believed at system time S":
 * {@code __SYSTEM_START_AT <= S < coalesce(__SYSTEM_END_AT, +infinity)}.
 */
public class BelievedAt extends ValidAt {
    private static final long serialVersionUID = 1L;

    @Override
    String name() {
        return "BELIEVED_AT";
    }
}
