#!/usr/bin/env bash
# A Docker engine for the container suite (npm run test:containers) and for trying the images
# on a machine without one, from Debian's packages alone:
#
#   docker/local-engine.sh up     use the engine that answers; else install docker.io when it is
#                                 missing, start dockerd in the background and wait for it.
#                                 Also installs the compose v2 plugin when `docker compose` is missing.
#   docker/local-engine.sh down   stop the dockerd that `up` started (by the PID it recorded);
#                                 an engine this script did not start is never touched.
#
# Exit status of `up`: 0 when an engine answers, 3 when none can be had here (not root, no
# apt-get, dockerd will not start: the reason is the last line on stderr), 1 on other errors.
# No systemd is needed: dockerd runs with the cgroupfs driver, overlay2 and bridge networking.
# Images are kept in dockerd's data root (/var/lib/docker) between `down` and the next `up`.
set -euo pipefail

state="${PULLWRIGHT_ENGINE_DIR:-/tmp/pullwright-engine}"
pidfile="$state/dockerd.pid"

say() { echo "local-engine: $*" >&2; }
no_engine() {
  say "no Docker engine: $*"
  exit 3
}

engine_answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

apt_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
  # Only when the package is unknown: a fresh machine has no lists yet.
  apt-cache show "$1" >/dev/null 2>&1 || apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

# Compose v2 from Debian: bookworm ships only compose v1, which cannot pass
# `systempaths=unconfined` (the worker's sandbox needs it). trixie's docker-compose package is
# the v2 plugin, a static binary that runs on bookworm. It is fetched with apt from the mirror
# apt already uses, through private lists, so the host's apt sources are left as they are.
install_compose_plugin() {
  [ "$(id -u)" = 0 ] || { say "docker compose v2 is missing (run as root to install it)"; return 1; }
  local tmp mirror lists
  tmp="$(mktemp -d)"
  mirror="$(apt-get indextargets --format '$(LABEL) $(REPO_URI)' 2>/dev/null | awk '$1 == "Debian" { print $2; exit }')"
  mirror="${mirror:-http://deb.debian.org/debian/}"
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$tmp/sources.list"
  lists=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o APT::Sandbox::User=root)
  say "installing the docker compose v2 plugin from Debian trixie's docker-compose package ($mirror)"
  apt-get "${lists[@]}" update -qq >&2
  (cd "$tmp" && apt-get "${lists[@]}" download docker-compose >&2)
  dpkg-deb -x "$tmp"/docker-compose_*.deb "$tmp/root"
  install -D -m 0755 "$tmp/root/usr/libexec/docker/cli-plugins/docker-compose" \
    /usr/local/lib/docker/cli-plugins/docker-compose
  rm -rf "$tmp"
  docker compose version >&2
}

up() {
  mkdir -p "$state"
  if ! engine_answers; then
    # An engine named by DOCKER_HOST is the one wanted: a local dockerd would not be it.
    [ -z "${DOCKER_HOST:-}" ] || no_engine "DOCKER_HOST=$DOCKER_HOST does not answer"
    command -v dockerd >/dev/null || apt_install docker.io ||
      no_engine "dockerd is not installed and cannot be (apt-get install docker.io needs root and apt)"
    [ "$(id -u)" = 0 ] || no_engine "the Docker engine does not answer, and starting dockerd needs root"
    say "starting dockerd (log: $state/dockerd.log)"
    # setsid: dockerd outlives this script (the suite's tests use it); `down` stops it by PID.
    setsid dockerd --log-level=warn >"$state/dockerd.log" 2>&1 </dev/null &
    echo $! >"$pidfile"
    for _ in $(seq 120); do
      engine_answers && break
      if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
        rm -f "$pidfile"
        tail -n 5 "$state/dockerd.log" >&2
        no_engine "dockerd exited at start (log above)"
      fi
      sleep 0.5
    done
    if ! engine_answers; then
      down
      no_engine "dockerd did not answer within 60 s ($state/dockerd.log)"
    fi
  fi
  docker compose version >/dev/null 2>&1 || install_compose_plugin ||
    no_engine "docker compose v2 is missing and could not be installed"
  say "engine $(docker version --format '{{.Server.Version}}'), $(docker compose version --short 2>/dev/null | sed 's/^/compose /')"
}

down() {
  [ -f "$pidfile" ] || return 0
  local pid
  pid="$(cat "$pidfile")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    # dockerd stops its containers (10 s each at most) and its containerd before exiting.
    for _ in $(seq 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && { say "dockerd $pid did not stop within 60 s"; return 1; }
    say "stopped dockerd $pid"
  fi
  rm -f "$pidfile"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: docker/local-engine.sh up|down" >&2; exit 2 ;;
esac
