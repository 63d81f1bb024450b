#!/usr/bin/env bash
# Runs the tests of the audio path (ring, capture, playback, hearing, listener, output, the
# assistant fed from arrays and live) under ThreadSanitizer, in a build folder of its own
# (.build-tsan; the first build takes a while). Exits non-zero if a test fails or TSan reports
# a data race. Not part of scripts/test.sh: a TSan build is several times slower. See
# "Thread safety" in docs/reliability.md.
#
#   scripts/tsan.sh [--jobs J] [FILTER]     FILTER: a swift test --filter (default: the audio path)
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=2
filter='\.(SampleRingTests|CaptureDeviceTests|PlaybackDeviceTests|HearingTests|ListenerTests|AudioOutputTests|AssistantPartsTests|ConversationTests|AssistantTests)/'
while (($#)); do
  case "$1" in
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) filter="$1"; shift ;;
  esac
done

scratch=.build-tsan
swift build --build-tests -j "$jobs" --scratch-path "$scratch" --sanitize=thread
log="$scratch/tsan.log"
status=0
# halt_on_error=0: every race is reported, not just the first; the run fails at the end if any was.
TSAN_OPTIONS="halt_on_error=0 exitcode=66 ${TSAN_OPTIONS:-}" SWIFT_BACKTRACE=enable=no \
  swift test --skip-build --scratch-path "$scratch" --sanitize=thread --no-parallel --filter "$filter" 2>&1 | tee "$log" || status=$?
races=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "tsan: $races ThreadSanitizer report(s); log in $log"
if ((status != 0 || races > 0)); then exit 1; fi
