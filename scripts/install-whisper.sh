#!/bin/bash
# Sets up Whisper speech to text for hotword: wyoming-faster-whisper (pinned) in a Python
# environment of its own, its systemd service on 127.0.0.1:10300, [stt] pointed at it, and one
# transcription to show that it works. docs/stt.md has the measurements behind the defaults.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: scripts/install-whisper.sh [--prefix DIR] [--model NAME|FOLDER] [--language CODE]
                                  [--config FILE] [--hotword FILE] [--no-service]

  1. PREFIX/venv: a Python environment with wyoming-faster-whisper 3.8.1 from PyPI
     (Debian's python3-venv is installed when missing)
  2. /etc/hotword/whisper.env: the model and the language for the service
  3. hotword-whisper.service (2 threads, 127.0.0.1:10300), enabled and started; the model is
     downloaded once, at its first start (tiny.en: 75 MB), into /var/lib/hotword-whisper
  4. the configuration's [stt]: backend = "wyoming" at tcp://127.0.0.1:10300 with the language
     (a configuration that is not the shipped shape is left alone: the lines are printed)
  5. a check: one sentence spoken by espeak-ng, transcribed by the service

Options:
  --prefix DIR     where the Python environment goes (default /opt/hotword-whisper; the unit
                   expects that one)
  --model NAME     tiny.en (default for English), tiny-int8 (default otherwise), base.en,
                   base-int8, small-int8, … or a folder holding a CTranslate2 Whisper model
  --language CODE  the spoken language (ISO 639-1); default: [stt.wyoming] language of the
                   configuration, else en
  --config FILE    the configuration to point at the service (default /etc/hotword/hotword.toml)
  --hotword FILE   the hotword program for the check (default: hotword on the PATH)
  --no-service     only the Python environment (where systemd does not run, or to start
                   PREFIX/venv/bin/wyoming-faster-whisper yourself); nothing else changes
  -h, --help       this text

Run it as root (sudo), except with --no-service and a --prefix you can write.
USAGE
}

version=3.8.1
prefix=/opt/hotword-whisper
model=""
language=""
config=/etc/hotword/hotword.toml
hotword=""
service=true
while (($#)); do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
    --model) model="${2:?--model needs a name or a folder}"; shift 2 ;;
    --language) language="${2:?--language needs a code}"; shift 2 ;;
    --config) config="${2:?--config needs a file}"; shift 2 ;;
    --hotword) hotword="${2:?--hotword needs a file}"; shift 2 ;;
    --no-service) service=false; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-whisper.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
  esac
done
root="$(cd "$(dirname "$0")/.." && pwd)"

# 1. The Python environment, kept when it has the pinned version already.
venv="$prefix/venv"
installed=$("$venv/bin/python" -c 'from importlib.metadata import version; print(version("wyoming-faster-whisper"))' 2>/dev/null || true)
if [ "$installed" != "$version" ]; then
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    echo "installing python3-venv (Debian) for the Python environment"
    apt-get install -y -q python3-venv >/dev/null
  fi
  echo "installing wyoming-faster-whisper==$version into $venv (about 560 MB with its libraries)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "wyoming-faster-whisper==$version"
fi
echo "wyoming-faster-whisper $version: $venv/bin/wyoming-faster-whisper"
if ! $service; then
  exit 0
fi

# 2. The service's settings: the language as configured for the Wyoming backend, else English.
if [ -z "$language" ] && [ -r "$config" ]; then
  language="$(awk -F'"' '/^\[/ { table = $0 } table == "[stt.wyoming]" && /^language *=/ { print $2 }' "$config")"
fi
language="${language:-en}"
if [ -z "$model" ]; then
  if [ "$language" = en ]; then model=tiny.en; else model=tiny-int8; fi
fi
install -d -m 0755 /etc/hotword
printf '# Written by install-whisper.sh; read by hotword-whisper.service (WYO_WHISPER_<OPTION>).\nWYO_WHISPER_MODEL=%s\nWYO_WHISPER_LANGUAGE=%s\n' \
  "$model" "$language" > /etc/hotword/whisper.env

# 3. The unit: the packaged one, or this checkout's.
unit=/lib/systemd/system/hotword-whisper.service
if [ ! -e "$unit" ]; then
  unit=/etc/systemd/system/hotword-whisper.service
  install -m 0644 "$root/systemd/hotword-whisper.service" "$unit"
fi
if [ "$prefix" != /opt/hotword-whisper ]; then
  install -d /etc/systemd/system/hotword-whisper.service.d
  printf '[Service]\nExecStart=\nExecStart=%s/bin/wyoming-faster-whisper --uri tcp://127.0.0.1:10300 --data-dir ${STATE_DIRECTORY}\n' \
    "$venv" > /etc/systemd/system/hotword-whisper.service.d/prefix.conf
fi
systemctl daemon-reload
systemctl enable --now hotword-whisper.service
echo "hotword-whisper.service: model $model, language $language (downloading the model at its first start)"

# 4. [stt] of the configuration, where it has the shipped shape; else the lines to write.
lines=$'[stt]\nbackend = "wyoming"\n\n[stt.wyoming]\nuri = "tcp://127.0.0.1:10300"\nlanguage = "'"$language"'"'
if [ -w "$config" ] && grep -q '^\[stt\.wyoming\]' "$config" \
   && [ "$(awk '/^\[/ { table = $0 } table == "[stt]" && /^backend *=/' "$config" | wc -l)" = 1 ]; then
  awk -v language="$language" '
    /^\[/ { table = $0 }
    table == "[stt]" && /^backend *=/ { print "backend = \"wyoming\""; next }
    table == "[stt.wyoming]" && /^uri *=/ { print "uri = \"tcp://127.0.0.1:10300\""; next }
    table == "[stt.wyoming]" && /^language *=/ { print "language = \"" language "\""; next }
    { print }' "$config" > "$config.new"
  cat "$config.new" > "$config" && rm "$config.new"  # in place: keeps the file's owner and mode
  echo "$config: [stt] backend = \"wyoming\" (systemctl reload hotword takes it up)"
else
  echo "Put these lines into the configuration ($config), replacing its [stt] and [stt.wyoming]:"
  echo "$lines"
fi

# 5. One transcription: waits for the model's download and loading at the first start.
hotword="${hotword:-$(command -v hotword || true)}"
if [ -z "$hotword" ]; then
  echo "hotword is not on the PATH: check with  hotword transcribe FILE.wav --backend wyoming"
  exit 0
fi
sample="$(mktemp -d)"
trap 'rm -rf "$sample"' EXIT
"$hotword" say "what is the capital of france" --out "$sample/question.wav" >/dev/null
for _ in $(seq 1 120); do
  if heard="$("$hotword" transcribe "$sample/question.wav" --backend wyoming --wyoming tcp://127.0.0.1:10300 --timeout 60 2>/dev/null)"; then
    echo "check: espeak-ng said \"what is the capital of france\", Whisper heard \"$heard\""
    exit 0
  fi
  sleep 5
done
echo "install-whisper.sh: hotword-whisper.service did not answer within 10 minutes (journalctl -u hotword-whisper)" >&2
exit 1
