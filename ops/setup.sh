#!/usr/bin/env bash
# Installs what the farm builds and runs with, and what the demo uses, if any is missing: the
# C libraries' headers, PostgreSQL (the demo's private farm), ffmpeg (the demo's media only),
# fonts. The tests' tools are ops/setup-tests.sh's. Does nothing when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ops/install-packages.sh setup libzmq3-dev libavcodec-dev libavformat-dev libswscale-dev \
    libswresample-dev libavutil-dev libpq-dev libssl-dev postgresql ffmpeg pkg-config libharfbuzz-dev \
    libfreetype-dev libfontconfig-dev fonts-dejavu-core

command -v swift >/dev/null || { echo "setup: swift is not on PATH (install Swift 5.10 or later)" >&2; exit 1; }
