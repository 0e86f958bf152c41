package dev.autocdc.operators.flink.state;

/**
 * Counts the engine's keyed-state accesses: value reads and writes, map point reads and writes, and
 * map iterator steps. Used by the state-scale tests and reported by the benchmarks.
 */
public final class StateAccessCounter {
    public long valueReads;
    public long valueWrites;
    public long mapWrites;
    public long iteratorSteps;

    public long valueReads() {
        return valueReads;
    }

    public long valueWrites() {
        return valueWrites;
    }

    public long mapWrites() {
        return mapWrites;
    }

    public long iteratorSteps() {
        return iteratorSteps;
    }

    /** All reads and writes (iterator steps counted as reads). */
    public long total() {
        return valueReads + valueWrites + mapWrites + iteratorSteps;
    }

    public void reset() {
        valueReads = 0;
        valueWrites = 0;
        mapWrites = 0;
        iteratorSteps = 0;
    }

    @Override
    public String toString() {
        return "valueReads="
                + valueReads
                + " valueWrites="
                + valueWrites
                + " mapWrites="
                + mapWrites
                + " iteratorSteps="
                + iteratorSteps;
    }
}
