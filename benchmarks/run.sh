#!/usr/bin/env bash
# The benchmark: every variant on the same generated workloads, parallelism 1, each run in its own JVM,
# runs interleaved so drift hits all variants alike; prints a Markdown table and `figure <name> <value>` lines.
# Usage: benchmarks/run.sh [--quick] [--rounds N]
#   --quick: sizes / 100, one round: keeps the harness alive in CI
#   --rounds N: N interleaved rounds instead of 3 (each about 15 minutes at full size); the medians of
#     more rounds hold on a machine whose runs of one job spread 1.5x (docs/performance.md)
set -euo pipefail
unset CACHE_KEYS RUN_SCALE # per-run settings of run() below, never inherited from the caller
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
quick=false
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=true; shift ;;
    --rounds)
      if ! [[ "${2:-}" =~ ^[1-9][0-9]*$ ]]; then echo "--rounds needs a whole number of rounds, like --rounds 5" >&2; exit 2; fi
      rounds="$2"; shift 2 ;;
    *) echo "unknown option: $1 (usage: benchmarks/run.sh [--quick] [--rounds N])" >&2; exit 2 ;;
  esac
done
if $quick; then scale=100; runs=1; else scale=1; runs=$rounds; fi
mvn -B -ntp -q package -DskipTests -pl benchmarks -am
cp="$(ls benchmarks/target/autocdc-benchmarks-*.jar | head -n 1):$(cat benchmarks/target/benchmark-classpath.txt)"
out="benchmarks/target/results"
mkdir -p "$out"
raw="$out/raw-runs.csv"
log="$out/last-run.log" # the stderr of the last JVM, shown when it printed no result
echo "variant,backend,workload,events,millis,events_per_s,peak_rss_mb,first_fifth_per_s,last_fifth_per_s,state_bytes,versions,row_bytes,alloc_bytes_per_event,cpu_ns_per_event" > "$raw"

run() { # variant backend workload [events]; RUN_SCALE=n runs it at a scale of its own, CACHE_KEYS=n
  # gives a *_cached variant a cache of n keys instead of every key
  local workload_label="$3" extra=()
  if [ -n "${4:-}" ]; then extra=(--events "$4"); workload_label="$3-1M"; fi
  local line
  line=$(java -Xmx2g --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
      -cp "$cp" dev.autocdc.benchmarks.BenchmarkJob --variant "$1" --backend "$2" --workload "$3" --scale "${RUN_SCALE:-$scale}" \
      ${CACHE_KEYS:+--cache-keys "$CACHE_KEYS"} "${extra[@]}" 2>"$log" | grep '^result ' || true)
  if [ -z "$line" ]; then echo "benchmark run failed: $* (the end of its stderr follows)" >&2; tail -n 30 "$log" >&2; exit 1; fi
  echo "$line" >&2
  # result variant=.. backend=.. workload=.. events=.. millis=.. ...: the values in order, the workload relabelled
  echo "$line" | sed -E 's/^result //; s/[a-z_]+=//g; s/ /,/g' \
    | awk -F, -v w="$workload_label" 'BEGIN{OFS=","} {$3=w; print}' >> "$raw"
}

figures_failed() { # benchmark: it printed no figure; show why
  echo "$1 printed no figure (the end of its stderr follows)" >&2; tail -n 30 "$log" >&2; exit 1
}

naive_events=$((1000000 / scale))
run passthrough rocksdb W1   # warm-up, discarded below
sed -i '2,$d' "$raw"
for r in $(seq 1 "$runs"); do
  echo "== round $r of $runs" >&2
  run passthrough rocksdb W1
  run sql_dedup rocksdb W1
  run sql_dedup hashmap W1
  run sql_dedup_minibatch rocksdb W1
  run scd1 rocksdb W1
  run scd1 hashmap W1
  run scd2 rocksdb W1
  run scd2 hashmap W1
  run scd2 rocksdb W3
  run scd2 rocksdb W2
  run scd2 rocksdb W2 "$naive_events"
  run naive_scd2 rocksdb W2 "$naive_events"
  run sql_dedup rocksdb W4
  run bitemporal rocksdb W4
  run sql_dedup rocksdb W7   # hot keys: every other event on 1% of the keys
  run scd2 rocksdb W7
  CACHE_KEYS=$((10000 / scale)) run scd2_cached rocksdb W7   # a cache of a tenth of the keys
  run sql_dedup rocksdb W5
  run scd2 rocksdb W5
  # W6 at a tenth of its size (1M rows over 100k keys): at full size one snapshot_scd2 run took over
  # 19 minutes here (2026-12-02), more than the rest of a round
  RUN_SCALE=$((scale * 10)) run sql_dedup rocksdb W6
  RUN_SCALE=$((scale * 10)) run snapshot_scd2 rocksdb W6
  run kafka_passthrough rocksdb W1
  run kafka_passthrough_double rocksdb W1
  run kafka_scd2 rocksdb W1
  run kafka_scd2_flink_decoding rocksdb W1
done
java -cp "$cp" dev.autocdc.benchmarks.Report "$raw" "$out/chart.svg" | tee "$out/report.md"
# the biggest local run a new user makes: 2M events over 100k keys into SCD2 with --materialize, in the
# heap deploy/autocdc gives (figures: seconds, peak RSS, rows, dead letters)
java -Xmx1g --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
    -cp "$cp" dev.autocdc.benchmarks.MaterializeBenchmark --events $((2000000 / scale)) --keys $((100000 / scale)) \
    2>"$log" | grep '^figure ' | tee -a "$out/report.md" || figures_failed MaterializeBenchmark
# state under churn (docs/reliability.md): every key inserted and deleted once per cycle, retentions
# far shorter than a cycle; the state's mean in the last quarter over its mean in the second quarter
if $quick; then churn=(--keys 20000 --cycles 8 --retention-ms 200 --sample-ms 100); else churn=(); fi
java -Xmx2g --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
    -cp "$cp" dev.autocdc.benchmarks.ChurnBenchmark "${churn[@]}" \
    2>"$log" | grep '^figure ' | tee -a "$out/report.md" || figures_failed ChurnBenchmark
if ! $quick; then
  # the full run is what docs/performance.md shows
  mkdir -p docs/performance
  cp "$raw" "$out/report.md" "$out/chart.svg" docs/performance/
fi
