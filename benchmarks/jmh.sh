#!/usr/bin/env bash
# The core alone (CoreBenchmark: the engines over in-memory timelines, the state codec), with JMH's
# allocation profiler: gc.alloc.rate.norm is the bytes allocated per operation, which does not drift.
# Usage: benchmarks/jmh.sh [JMH options, e.g. -p workload=W1 -wi 1 -i 2]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mvn -B -ntp -q package -DskipTests -pl benchmarks -am
cp="$(ls benchmarks/target/autocdc-benchmarks-*.jar | head -n 1):$(cat benchmarks/target/benchmark-classpath.txt)"
java -cp "$cp" org.openjdk.jmh.Main CoreBenchmark -prof gc "$@"
