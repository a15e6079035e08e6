#!/usr/bin/env bash
# Installs what the tests use besides the farm's own needs (ops/setup.sh, run first): Debian's
# headless Chromium and its driver (the dashboard's browser tests), tmux (`farm watch` on a
# terminal), curl, python3-pil (an image oracle), nodejs (the lint of the dashboard's script),
# fonts-noto-cjk (Japanese captions fall back to it) and the tests' Python packages. The farm itself never runs any of them. Does nothing when
# everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ops/setup.sh
bash ops/install-packages.sh setup-tests python3 python3-venv python3-pil tmux curl chromium chromium-driver \
    nodejs fonts-noto-cjk

# From PyPI: opentimelineio, an oracle for `farm import`, and the adapters docs/otio.md names
# (CMX 3600 EDL, FCP 7 XML, FCPXML, AAF, ALE, GStreamer's XGES, Kdenlive), which read the editors'
# timelines of the wild timeline check; prometheus_client, whose parser reads
# `/metrics`; selenium, which drives the dashboard in Chromium; schemathesis, which calls the
# API against its OpenAPI file; kubernetes-validate, which checks deploy/k8s against Kubernetes'
# schemas (ops/check-deploy.py); html5lib and tinycss2, which parse the dashboard's page and style
# for ops/lint.sh (nodejs, above, checks its script). In the repository's .build folder, beside
# the build.
venv="$PWD/.build/otio-venv"
modules="opentimelineio, prometheus_client, selenium, schemathesis, kubernetes_validate, html5lib, tinycss2"
modules+=", otio_cmx3600_adapter, otio_fcp_adapter, otio_fcpx_xml_adapter, otio_aaf_adapter, otio_ale_adapter"
modules+=", otio_xges_adapter, otio_kdenlive_adapter"
if ! "$venv/bin/python3" -c "import $modules" 2>/dev/null; then
    echo "setup-tests: installing the tests' Python packages into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "opentimelineio==0.18.1" "prometheus_client==0.26.0" \
        "selenium==4.45.0" "schemathesis==4.32.5" "kubernetes-validate==1.37.0" "html5lib==1.1" \
        "tinycss2==1.5.1" "otio-cmx3600-adapter==1.0.0" "otio-fcp-adapter==1.0.0" "otio-fcpx-xml-adapter==1.0.0" \
        "otio-aaf-adapter==2.0.0" "otio-ale-adapter==1.1.0" "otio-xges-adapter==1.0.0" "otio-kdenlive-adapter==0.0.3"
fi
