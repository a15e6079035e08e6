#!/usr/bin/env bash
# The deployment tests in full, as root: the release package deployed on seven namespace hosts
# made of debootstrap'd root file systems (ops/test-deploy.sh), then the images made from it,
# run with podman and podman-compose (ops/build-images.sh, ops/test-images.sh).
#   bash ops/test-deployment.sh
# About 8 minutes on a fresh clone of a 2-core machine, most of it the release build, so the
# README's test command (ops/test.sh) runs the reduced form: the namespace hosts with this
# tree's own build (EndToEndTests' FarmNetworkTests) and the Kubernetes manifests against their
# schemas (ops/check-deploy.py). docs/install.md keeps the output of the last full run.
set -euo pipefail
cd "$(dirname "$0")/.."

[[ $(id -u) -eq 0 ]] || { echo "test-deployment: run as root (namespaces, mounts, chroot, podman)" >&2; exit 1; }
now() { date +%s; }
started=$(now)
bash ops/test-deploy.sh < /dev/null
deployed=$(now)
bash ops/build-images.sh < /dev/null
bash ops/test-images.sh < /dev/null
echo "test-deployment: PASSED in $(($(now) - started)) s (package and hosts $((deployed - started)) s," \
    "images $(($(now) - deployed)) s)"
