#!/usr/bin/env bash
# The soak test (docs/soak.md): hours of audio — background speech over noise, a real wake word
# and a spoken question every minute — said faster than real time into `hotword run --json`
# through a real ALSA device, with a local SUSI server. Prints the figures and fails unless every
# wake word is detected once and on time, detection times do not drift, no audio is lost and
# memory stays flat (--asan: no leaks under LeakSanitizer instead). Takes hours, so it is not
# part of scripts/test.sh.
#
#   scripts/soak.sh [--hours 24] [--speed 100] [--asan] [more hotword-soak options, see --help]
#
# --asan builds hotword with AddressSanitizer (LeakSanitizer reports leaks at exit) and
# defaults to 2 hours of audio. SCRATCH chooses the build folder (default .build), JOBS the
# number of build jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
hours="" speed=100 asan=0 rest=()
while (($#)); do
  case "$1" in
    --hours) hours="$2"; shift 2 ;;
    --speed) speed="$2"; shift 2 ;;
    --asan) asan=1; shift ;;
    *) rest+=("$1"); shift ;;
  esac
done
scratch="${SCRATCH:-.build}"
build=(swift build -c release ${JOBS:+-j "$JOBS"})
scripts/deps.sh
"${build[@]}" --scratch-path "$scratch" --product hotword-soak
if ((asan)); then
  "${build[@]}" --sanitize=address --scratch-path "$scratch-asan" --product hotword
  binary="$scratch-asan/release/hotword"
  # LeakSanitizer runs inside AddressSanitizer on Linux and reports at exit; no suppressions.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
  rest+=(--sanitized)
  hours="${hours:-2}"
else
  "${build[@]}" --scratch-path "$scratch" --product hotword
  binary="$scratch/release/hotword"
fi
exec "$scratch/release/hotword-soak" --hotword "$binary" --hours "${hours:-24}" --speed "$speed" ${rest[@]+"${rest[@]}"}
