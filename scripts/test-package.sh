#!/usr/bin/env bash
# The Debian package on this machine, as a user gets it: builds it (scripts/package-deb.sh),
# installs it with apt, runs the installed hotword, verifies the installed units, upgrades it
# over a changed configuration, removes and purges it, and checks that nothing is left but
# what Debian policy keeps (the system user). Needs root: it installs into the system. CI
# runs it from scripts/test.sh; it refuses to touch a machine where hotword is installed.
#
#   scripts/test-package.sh [--jobs N]
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
jobs=()
if [ "${1:-}" = --jobs ]; then jobs=(--jobs "${2:?--jobs needs a number}"); fi

fail() { echo "test-package: FAIL: $*" >&2; exit 1; }
pass() { echo "test-package: ok: $*"; }
[ "$(id -u)" = 0 ] || fail "needs root (it installs the package with apt)"
if dpkg-query -W -f='${Status}' hotword 2>/dev/null | grep -q installed; then
  fail "hotword is already installed here; this test would remove it (apt purge hotword first)"
fi
[ ! -e /usr/local/share/hotword/models/computer.hwks ] \
  || fail "/usr/local/share/hotword/models holds models (scripts/install.sh): --model computer would find those first"
# A clip of a person saying "computer" (../shared/README.md), and one saying "jarvis".
keyword_clip=../shared/data/keywords/computer/04fdc82a-70e8-4e64-9fc5-189bcecb28ce.flac
other_clip=../shared/data/keywords/jarvis/008a6329-b20c-4cfc-9ad4-9e7034bc5148.flac
[ -f "$keyword_clip" ] && [ -f "$other_clip" ] || fail "$keyword_clip or $other_clip is missing (../shared beside the project)"

work="$root/.build-package-test"
rm -rf "$work"
mkdir -p "$work"
export DEBIAN_FRONTEND=noninteractive
dpkg-query -W -f='${Status}' lintian 2>/dev/null | grep -q "install ok installed" \
  || apt-get install -y -qq --no-install-recommends lintian >/dev/null
scripts/package-deb.sh --out "$work" --gzip "${jobs[@]}"
deb="$(ls "$work"/hotword_*.deb)"
version="$(dpkg-deb -f "$deb" Version)"

# Everything a package may leave behind, before and after.
snapshot() {
  local folder
  for folder in /etc /lib/systemd /usr/lib/systemd /usr/bin /usr/share/hotword /usr/share/doc /usr/share/man/man1 /var/lib; do
    [ ! -e "$folder" ] || find "$folder" -path /var/lib/dpkg -prune -o -path /var/lib/apt -prune -o -print
  done | sort
}
snapshot > "$work/before.txt"

apt-get install -y -qq "$deb" > "$work/apt-install.log" 2>&1 || { cat "$work/apt-install.log"; fail "apt-get install $deb"; }
pass "installed $(basename "$deb") with apt-get"

[ "$(command -v hotword)" = /usr/bin/hotword ] || fail "hotword is $(command -v hotword), not /usr/bin/hotword"
[ "$(hotword --version)" = "$version" ] || fail "hotword --version says '$(hotword --version)', the package $version"
if ldd /usr/bin/hotword | grep -E 'libswift|libFoundation|libdispatch|not found'; then fail "libraries above"; fi
pass "hotword --version: $version, no Swift runtime library loaded"

detections="$(hotword detect "$keyword_clip" --model computer)"
[[ "$detections" == *$'\tcomputer\t'* ]] || fail "no computer detected in $keyword_clip: '$detections'"
[ -z "$(hotword detect "$other_clip" --model computer)" ] || fail "computer detected in $other_clip"
pass "hotword detect found 'computer' with the installed model ($detections), nothing in a jarvis clip"

listed="$(hotword data list --dir "$work/data")"
[[ "$listed" == *"speech_commands "*"catalogue: /usr/share/hotword/corpora/catalogue.tsv"* ]] || fail "hotword data list: $listed"
pass "hotword data list reads the installed catalogue"

hotword config check /etc/hotword/hotword.toml >/dev/null || fail "hotword config check /etc/hotword/hotword.toml"
[ "$(stat -c '%a %U %G' /etc/hotword/hotword.toml)" = "640 root hotword" ] \
  || fail "/etc/hotword/hotword.toml is $(stat -c '%a %U %G' /etc/hotword/hotword.toml), not 640 root hotword"
id -nG hotword | grep -qw audio || fail "user hotword is not in group audio: $(id -nG hotword)"
[ "$(stat -c '%a %U' /var/lib/hotword)" = "700 hotword" ] || fail "/var/lib/hotword is $(stat -c '%a %U' /var/lib/hotword)"
[ -L /etc/systemd/system/multi-user.target.wants/hotword.service ] || fail "hotword.service is not enabled"
[ ! -e /etc/systemd/system/multi-user.target.wants/hotword-wyoming.service ] || fail "hotword-wyoming.service is enabled"
[ ! -e /etc/systemd/system/multi-user.target.wants/hotword-whisper.service ] || fail "hotword-whisper.service is enabled"
[ -x /usr/share/hotword/install-whisper.sh ] || fail "/usr/share/hotword/install-whisper.sh is not installed"
[ -x /usr/share/hotword/train-word.sh ] || fail "/usr/share/hotword/train-word.sh is not installed"
for file in install-voices.sh python-venv.sh voices/hotword-voices.py; do
  [ -f "/usr/share/hotword/$file" ] || fail "/usr/share/hotword/$file is not installed"
done
/usr/share/hotword/install-voices.sh --help | grep -q "PREFIX/bin/hotword-voices" || fail "install-voices.sh --help"
pass "configuration valid, 0640 root:hotword; user hotword in audio; /var/lib/hotword 0700; hotword.service enabled"

verify="$(systemd-analyze verify /lib/systemd/system/hotword.service /lib/systemd/system/hotword-wyoming.service 2>&1)" \
  || fail "systemd-analyze verify: $verify"
[ -z "$verify" ] || fail "systemd-analyze verify: $verify"
mkdir -p "$work/runtime"
verify="$(XDG_RUNTIME_DIR="$work/runtime" systemd-analyze --user verify /usr/lib/systemd/user/hotword.service 2>&1)" \
  || fail "systemd-analyze --user verify: $verify"
[ -z "$verify" ] || fail "systemd-analyze --user verify: $verify"
# The Whisper unit's program comes with install-whisper.sh: that it is missing is all there is to say.
verify="$(systemd-analyze verify /lib/systemd/system/hotword-whisper.service 2>&1 || true)"
[ "$verify" = "hotword-whisper.service: Command /opt/hotword-whisper/venv/bin/wyoming-faster-whisper is not executable: No such file or directory" ] \
  || fail "systemd-analyze verify hotword-whisper.service: $verify"
pass "systemd-analyze verify: the three system units and the user unit (the Whisper unit's program not yet installed)"

# An upgrade keeps the administrator's configuration, its mode, and a disabled service disabled.
echo '# changed by the administrator' >> /etc/hotword/hotword.toml
changed="$(sha256sum < /etc/hotword/hotword.toml)"
systemctl disable --quiet hotword.service
dpkg-deb -R "$deb" "$work/next"
sed -i "s/^Version: .*/Version: $version+next/" "$work/next/DEBIAN/control"
dpkg-deb --root-owner-group -Zgzip -z1 -b "$work/next" "$work/hotword_next.deb" >/dev/null
apt-get install -y -qq "$work/hotword_next.deb" > "$work/apt-upgrade.log" 2>&1 || { cat "$work/apt-upgrade.log"; fail "upgrade"; }
[ "$(dpkg-query -W -f='${Version}' hotword)" = "$version+next" ] || fail "not upgraded"
[ "$(sha256sum < /etc/hotword/hotword.toml)" = "$changed" ] || fail "the upgrade replaced the changed /etc/hotword/hotword.toml"
[ "$(stat -c '%a %G' /etc/hotword/hotword.toml)" = "640 hotword" ] || fail "the upgrade changed the configuration's mode or group"
[ ! -e /etc/systemd/system/multi-user.target.wants/hotword.service ] || fail "the upgrade enabled a disabled service again"
pass "upgraded to $version+next: changed configuration kept (0640, group hotword), the disabled service stayed disabled"

apt-get remove -y -qq hotword > "$work/apt-remove.log" 2>&1 || { cat "$work/apt-remove.log"; fail "apt-get remove"; }
for gone in /usr/bin/hotword /usr/share/hotword /lib/systemd/system/hotword.service /usr/lib/systemd/user/hotword.service; do
  [ ! -e "$gone" ] || fail "$gone is still there after apt-get remove"
done
[ -f /etc/hotword/hotword.toml ] && [ -d /var/lib/hotword ] || fail "apt-get remove took the configuration or the state"
pass "removed: program, models and units gone; configuration and state kept until purge"

apt-get purge -y -qq hotword > "$work/apt-purge.log" 2>&1 || { cat "$work/apt-purge.log"; fail "apt-get purge"; }
! dpkg-statoverride --list /etc/hotword/hotword.toml >/dev/null || fail "the statoverride survived the purge"
snapshot > "$work/after.txt"
# What policy keeps: the system user (files it owned may remain elsewhere); adduser's backups
# of the account files.
left="$(comm -13 "$work/before.txt" "$work/after.txt" | grep -v -x -E '/etc/(passwd|group|shadow|gshadow)-' || true)"
[ -z "$left" ] || fail "left after purge: $left"
getent passwd hotword >/dev/null || fail "the user hotword is gone (policy keeps it)"
pass "purged: nothing left but the system user hotword"
rm -rf "$work"
echo "test-package: passed in ${SECONDS} s"
