# Sourced by ops/build-images.sh and ops/test-images.sh, or by hand to use the same images:
#   . ops/images/podman-env.sh && podman images
# Podman as this machine allows it: Debian's podman with runc, the vfs storage driver (no
# overlay mounts here), no default ulimits (the default nofile/nproc limits are refused) and the
# host's network for builds and containers (no bridge or port forwarding is needed). The images
# live in their own store under $FARM_IMAGES_DIR (default /var/tmp/farm-images), apart from any
# other podman use on the machine.
FARM_IMAGES_DIR="${FARM_IMAGES_DIR:-/var/tmp/farm-images}"
mkdir -p "$FARM_IMAGES_DIR/conf"
# Podman 4's CNI networks (compose's) resolve containers by name only with the dnsname plugin,
# which Debian packages apart and podman does not pull in: without it a compose coordinator
# cannot find `postgres` ("could not translate host name").
dnsname=/usr/lib/cni/dnsname
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || [[ ! -x $dnsname ]]; then
    echo "podman-env: installing podman, runc and CNI's dnsname plugin" >&2
    packages=(podman runc golang-github-containernetworking-plugin-dnsname)
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; }
fi
cat >"$FARM_IMAGES_DIR/conf/containers.conf" <<CONF
[containers]
default_ulimits = []
netns = "host"

[engine]
runtime = "runc"
CONF
cat >"$FARM_IMAGES_DIR/conf/storage.conf" <<CONF
[storage]
driver = "vfs"
graphroot = "$FARM_IMAGES_DIR/storage"
runroot = "/run/farm-images"
CONF
export CONTAINERS_CONF="$FARM_IMAGES_DIR/conf/containers.conf"
export CONTAINERS_STORAGE_CONF="$FARM_IMAGES_DIR/conf/storage.conf"
