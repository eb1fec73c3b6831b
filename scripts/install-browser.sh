#!/bin/sh
# Install what the browser tests (pytest -m browser) need: Debian's chromium and
# chromium-driver. Nothing is downloaded by a test tool: selenium drives /usr/bin/chromium
# through /usr/bin/chromedriver. Runs apt-get as root (or through sudo when available).
set -eu

need=""
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need="$need chromium"
[ -x /usr/bin/chromedriver ] || need="$need chromium-driver"
# Fonts so screenshots show text (Debian's chromium pulls no font by itself on slim images).
dpkg -s fonts-dejavu-core >/dev/null 2>&1 || need="$need fonts-dejavu-core"

if [ -z "$need" ]; then
    echo "install-browser: chromium and chromium-driver are installed"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    run=""
elif command -v sudo >/dev/null 2>&1; then
    run="sudo"
else
    echo "install-browser: need root (or sudo) to apt-get install:$need" >&2
    exit 1
fi

echo "install-browser: apt-get install$need"
$run apt-get update -qq
# shellcheck disable=SC2086  # word splitting of the package list is intended
DEBIAN_FRONTEND=noninteractive $run apt-get install -y -qq --no-install-recommends $need
/usr/bin/chromium --version
/usr/bin/chromedriver --version
