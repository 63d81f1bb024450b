#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (release, -sanitize=fuzzer,address) and runs each for a
# while on its seed corpus. Exits non-zero if any target crashes, traps, leaks, times out or
# runs out of memory; the input that did it is kept and printed. See docs/fuzzing.md.
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [target…]     targets: model audio config susi wyoming (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
build_jobs=2
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) build_jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    model|audio|config|susi|wyoming) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (targets: model audio config susi wyoming)" >&2; exit 64 ;;
  esac
done
((${#targets[@]})) || targets=(model audio config susi wyoming)

# target → product and longest input (big enough for every seed); the longest one input may take (s).
declare -A product=([model]=FuzzModelFile [audio]=FuzzAudioFile [config]=FuzzConfiguration [susi]=FuzzSUSIReply [wyoming]=FuzzWyoming)
declare -A max_len=([model]=16384 [audio]=8192 [config]=16384 [susi]=8192 [wyoming]=16384)
timeout_seconds=10

scratch=.build-fuzzers
# Every Swift module is instrumented (coverage for the fuzzer, AddressSanitizer checks); the C
# libraries (libsndfile, FFTW…) are Debian's, uninstrumented: only their allocations (leaks)
# and the libc calls AddressSanitizer intercepts are checked.
swift build -c release -j "$build_jobs" --package-path Fuzz --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address
bin="$(swift build -c release --package-path Fuzz --scratch-path "$scratch" --show-bin-path)"

failed=()
for target in "${targets[@]}"; do
  seeds="Tests/FuzzCorpus/$target"
  corpus="$scratch/corpus/$target"     # grows across runs; libFuzzer adds new inputs to the first folder only
  crashes="$scratch/crashes/$target"
  mkdir -p "$corpus" "$crashes"
  log="$scratch/$target.log" started="$scratch/$target.started"
  touch "$started"   # a crash file newer than this is from this run
  echo "== fuzz $target: ${seconds}s, corpus $corpus + $seeds, crashes in $crashes/"
  status=0
  # Swift's own crash backtracer would run inside AddressSanitizer's report and trip over it.
  SWIFT_BACKTRACE=enable=no "$bin/${product[$target]}" "$corpus" "$seeds" -dict="Tests/FuzzCorpus/$target.dict" \
    -max_len="${max_len[$target]}" -timeout="$timeout_seconds" -rss_limit_mb=2048 \
    -max_total_time="$seconds" -artifact_prefix="$crashes/" -print_final_stats=1 2>"$log" || status=$?
  grep -E "^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" "$log" || true
  new_crashes=$(find "$crashes" -type f -newer "$started")
  if ((status != 0)) || [ -n "$new_crashes" ]; then
    failed+=("$target")
    echo "!! $target failed (exit status $status); log: $log"
    grep -E "ERROR|SUMMARY|Fatal error|leak|Test unit written|Base64" "$log" | head -20 || true
    for file in $new_crashes; do
      echo "   reproduce: $bin/${product[$target]} $file"
    done
  fi
done

if ((${#failed[@]})); then
  echo "fuzzing failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: no crash in ${targets[*]} (${seconds}s each)"
