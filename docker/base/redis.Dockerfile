# redis:7-bookworm built locally (docker/base-images.sh) from Debian's redis-server, with the
# official image's contract: redis-server and redis-cli on PATH, /data the working directory.
# It runs as the package's `redis` user from the start (the official image drops to it).
ARG DEBIAN_IMAGE=debian:bookworm-slim
FROM ${DEBIAN_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown redis:redis /data
WORKDIR /data
USER redis
EXPOSE 6379
CMD ["redis-server"]
