package dev.autocdc.operators.flink.spec;

import java.io.Serializable;

/**
 * How a flow's operator caches its hot state ({@code WriteBackCache}), as {@link
 * EngineSpec.Builder#build} resolved it from the settings.
 *
 * @param keys the most keys cached; 0: no cache
 * @param bytes the heap the cache may fill; 0: from the task's memory ({@code CacheBudget})
 * @param shares the flows of the job whose caches share a slot's budget, at least 1
 */
public record StateCacheSpec(int keys, long bytes, int shares) implements Serializable {}
