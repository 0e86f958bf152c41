package dev.autocdc.operators.flink.state;

import java.util.Arrays;

/** A business sequence in {@code SequenceCodec} form, as a MapState key (equality by content). */
public final class SequenceKey {
    private final byte[] bytes;

    public SequenceKey(byte[] bytes) {
        this.bytes = bytes;
    }

    public byte[] bytes() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SequenceKey && Arrays.equals(bytes, ((SequenceKey) o).bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return Arrays.toString(bytes);
    }
}
