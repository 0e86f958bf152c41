package dev.autocdc.operators.flink.state;

import java.io.IOException;
import java.util.HexFormat;

/**
 * A stored state value that does not read as its layout says: the message names what and where (a
 * sequence, in hex).
 */
public final class CorruptStateException extends IOException {
    private static final long serialVersionUID = 1L;

    CorruptStateException(String message) {
        super(message);
    }

    CorruptStateException(String message, Throwable cause) {
        super(message, cause);
    }

    /** A sequence (or any key bytes) for a message: hex, or "none". */
    static String hex(byte[] bytes) {
        return bytes == null ? "none" : "0x" + HexFormat.of().formatHex(bytes);
    }
}
