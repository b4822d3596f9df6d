#!/bin/sh
# make fuzz (docs/fuzzing.md): builds qualify-fuzz with libFuzzer and AddressSanitizer in its
# own build folder, then runs every target from a corpus seeded with the repository's
# fixtures, for FUZZ_RUNS executions each (bounded by FUZZ_MAX_TIME seconds). A crash fails
# the run and leaves its input in .build/fuzz-findings/<target>/. Leak detection is off:
# Foundation's XML parser leaks an error string per malformed document, which is not ours.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${FUZZ_RUNS:-100000}
max_time=${FUZZ_MAX_TIME:-600}
targets=${FUZZ_TARGETS:-}
cd "$root"

swift build --product qualify-fuzz >/dev/null
# Optimised, with testability for the readers' internal entry points: a debug build runs the
# slower readers at a few hundred inputs a second.
swift build -c release --scratch-path .build/fuzz --product qualify-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DQUALIFY_FUZZ -Xswiftc -enable-testing
fuzzer=.build/fuzz/release/qualify-fuzz
if [ -z "$targets" ]; then
  targets=$(.build/debug/qualify-fuzz | sed -n 's/^targets: //p' | tr -d ',')
fi

status=0
for target in $targets; do
  corpus=.build/fuzz-corpus/$target
  findings=.build/fuzz-findings/$target
  mkdir -p "$corpus" "$findings"
  .build/debug/qualify-fuzz seed "$target" "$root" "$corpus" >/dev/null
  log=.build/fuzz-findings/$target.log
  if ASAN_OPTIONS=detect_leaks=0 QUALIFY_FUZZ_TARGET=$target "$fuzzer" "$corpus" -runs="$runs" -max_total_time="$max_time" \
    -artifact_prefix="$findings/" -print_final_stats=1 -detect_leaks=0 >"$log" 2>&1; then
    executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    printf '%-10s %8s executions  %6s/s  no crash\n' "$target" "$executed" "$speed"
    if [ "${executed:-0}" -lt "$runs" ]; then
      echo "  fewer than $runs executions within ${max_time}s"
      status=1
    fi
  else
    printf '%-10s CRASH, see %s and %s\n' "$target" "$log" "$findings"
    grep -E "ERROR|Fatal error|SUMMARY" "$log" | head -5
    status=1
  fi
done
exit $status
