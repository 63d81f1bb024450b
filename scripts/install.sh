#!/usr/bin/env bash
# Installs hotword: the binary, the shipped models and the example configuration; with
# --service also the system service (user `hotword`, /etc/hotword/hotword.toml, the unit,
# enabled and started) and the Wyoming service's unit (not enabled); with --user-service the
# unit for desktop login sessions.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/install.sh [--prefix DIR] [--destdir DIR] [--binary FILE] [--service] [--user-service]

Builds hotword in release mode and installs
  PREFIX/bin/hotword
  PREFIX/share/hotword/models/*.hwks         (found by name: --model computer)
  PREFIX/share/hotword/models/*.hwse         (the speech embedding: train --features speech-embedding)
  PREFIX/share/hotword/corpora/catalogue.tsv (the corpora `hotword data fetch` downloads)
  PREFIX/share/hotword/hotword.example.toml  (every setting, explained)
  PREFIX/share/doc/hotword/README.md

Options:
  --prefix DIR     where to install (default /usr/local)
  --destdir DIR    stage everything under DIR, for packaging: creates no user and starts nothing
  --binary FILE    install this hotword binary instead of building one
  --service        also the system service: the user `hotword` (in group audio),
                   /etc/hotword/hotword.toml (from the example, if there is none yet), and
                   the unit hotword.service, enabled and started; and the unit
                   hotword-wyoming.service (`hotword serve` for Home Assistant), not enabled:
                   `systemctl enable --now hotword-wyoming` starts it
  --user-service   also the unit for login sessions (PipeWire/PulseAudio); each user enables
                   it with `systemctl --user enable --now hotword`
  -h, --help       this text

Run it as root (sudo) to install into /usr/local or to set up the service.
EOF
}

prefix=/usr/local
destdir=""
binary=""
service=false
user_service=false
while (($#)); do
  case "$1" in
    --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
    --destdir) destdir="${2:?--destdir needs a folder}"; shift 2 ;;
    --binary) binary="${2:?--binary needs a file}"; shift 2 ;;
    --service) service=true; shift ;;
    --user-service) user_service=true; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
  esac
done
case "$prefix" in
  /*) prefix="${prefix%/}" ;;
  *) echo "install.sh: --prefix must be an absolute path, not '$prefix'" >&2; exit 64 ;;
esac
if [ -n "$destdir" ]; then destdir="$(mkdir -p "$destdir" && cd "$destdir" && pwd)"; fi

root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "$binary" ]; then
  (cd "$root" && scripts/deps.sh && swift build -c release --product hotword)
  binary="$(cd "$root" && swift build -c release --show-bin-path)/hotword"
fi
[ -x "$binary" ] || { echo "install.sh: no executable hotword at '$binary'" >&2; exit 66; }

# systemd reads units from /usr/lib and /usr/local/lib; for other prefixes, from the
# administrator's folders in /etc, or for an installation in your home from your own.
case "$prefix" in
  /usr|/usr/local) system_units="$prefix/lib/systemd/system"; user_units="$prefix/lib/systemd/user" ;;
  "$HOME"|"$HOME"/*) system_units=/etc/systemd/system; user_units="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user" ;;
  *) system_units=/etc/systemd/system; user_units=/etc/systemd/user ;;
esac

# A unit with this installation's paths in place of the default /usr/local.
install_unit() {
  local source="$1" target="$2"
  install -d -m 0755 "$(dirname "$target")"
  sed "s|/usr/local/|$prefix/|g" "$source" > "$target"
  chmod 0644 "$target"
  echo "installed $target"
}

install -d -m 0755 "$destdir$prefix/bin" "$destdir$prefix/share/hotword/models" "$destdir$prefix/share/hotword/corpora" \
  "$destdir$prefix/share/doc/hotword"
install -m 0755 "$binary" "$destdir$prefix/bin/hotword"
install -m 0644 "$root"/Models/*.hwks "$root"/Models/*.hwse "$destdir$prefix/share/hotword/models/"
install -m 0644 "$root/Corpora/catalogue.tsv" "$destdir$prefix/share/hotword/corpora/"
install -m 0644 "$root/hotword.example.toml" "$destdir$prefix/share/hotword/hotword.example.toml"
install -m 0644 "$root/README.md" "$destdir$prefix/share/doc/hotword/README.md"
echo "installed $destdir$prefix/bin/hotword and the models in $destdir$prefix/share/hotword/models"

# systemctl only where it manages a running system, not when staging for a package.
live=false
if [ -z "$destdir" ] && [ -d /run/systemd/system ]; then live=true; fi

if $service; then
  if [ -z "$destdir" ]; then
    if ! id hotword >/dev/null 2>&1; then
      useradd --system --user-group --groups audio --home-dir /var/lib/hotword --no-create-home \
        --shell /usr/sbin/nologin --comment "hotword voice assistant" hotword
      echo "created the system user hotword (group audio)"
    fi
  fi
  config="$destdir/etc/hotword/hotword.toml"
  if [ -e "$config" ]; then
    echo "kept $config"
  else
    install -d -m 0755 "$destdir/etc/hotword"
    # It may hold a SUSI password: readable by root and the service only.
    install -m 0640 "$root/hotword.example.toml" "$config"
    if [ -z "$destdir" ]; then chgrp hotword "$config"; fi
    echo "installed $config"
  fi
  install_unit "$root/systemd/hotword.service" "$destdir$system_units/hotword.service"
  install_unit "$root/systemd/hotword-wyoming.service" "$destdir$system_units/hotword-wyoming.service"
  if $live; then
    systemctl daemon-reload
    systemctl enable --now hotword
    echo "hotword is running: journalctl -u hotword -f; after changing $config: systemctl reload hotword"
  elif [ -z "$destdir" ]; then
    echo "systemd is not running here: enable the service later with 'systemctl enable --now hotword'"
  fi
fi

if $user_service; then
  install_unit "$root/systemd/user/hotword.service" "$destdir$user_units/hotword.service"
  if $live && [ "$(id -u)" != 0 ]; then
    systemctl --user daemon-reload
    systemctl --user enable --now hotword
    echo "hotword is running in your session: journalctl --user -u hotword -f"
  else
    echo "each user starts it with: systemctl --user enable --now hotword"
  fi
fi
