package dev.autocdc.operators.core;

/** The shape of a target table (semantics §3-5): {@code STORED AS ...}. */
public enum TargetType {
    SCD1,
    SCD2,
    BITEMPORAL
}
