#!/usr/bin/env bash
# Installs the system packages the farm builds and runs with, if any are missing.
# Safe to run again: it does nothing when everything is present.
set -euo pipefail

packages=(libzmq3-dev libavcodec-dev libavformat-dev libswscale-dev libswresample-dev libavutil-dev
    libpq-dev libssl-dev postgresql ffmpeg pkg-config python3 tmux libharfbuzz-dev libfreetype-dev
    libfontconfig-dev fonts-dejavu-core python3-venv python3-pil curl chromium chromium-driver nodejs)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v swift >/dev/null || { echo "setup: swift is not on PATH (install Swift 5.10 or later)" >&2; exit 1; }

# Test-only Python packages (PyPI); the farm itself never runs them: opentimelineio, an oracle
# for `farm import`; prometheus_client, whose parser reads `/metrics`; selenium, which drives the
# dashboard in Debian's headless Chromium; schemathesis, which calls the API against its
# OpenAPI file; kubernetes-validate, which checks deploy/k8s against Kubernetes' schemas
# (ops/check-deploy.py); html5lib and tinycss2, which parse the dashboard's page and style for
# ops/lint.sh (nodejs, above, checks its script).
# In the repository's .build folder, beside the build.
venv="$(cd "$(dirname "$0")/.." && pwd)/.build/otio-venv"
modules="opentimelineio, prometheus_client, selenium, schemathesis, kubernetes_validate, html5lib, tinycss2"
if ! "$venv/bin/python3" -c "import $modules" 2>/dev/null; then
    echo "setup: installing the tests' Python packages into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "opentimelineio==0.18.1" "prometheus_client==0.26.0" \
        "selenium==4.45.0" "schemathesis==4.32.5" "kubernetes-validate==1.37.0" "html5lib==1.1" "tinycss2==1.5.1"
fi
