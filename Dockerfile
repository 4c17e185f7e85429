# API: REST v1, webhooks, SSE and the dashboard. Stateless: runs no repository code and keeps
# nothing another process needs on its disk (transcripts and artifacts live in Redis).
# The CLI is compiled to JavaScript (apps/cli/dist) with the dev toolchain; the image itself
# holds production dependencies only and never runs TypeScript.
# Build with BuildKit (docker compose build, docker buildx build). No registry at hand, or
# behind a TLS-intercepting proxy: docs/deploying.md ("Building the images").

# The base image; a mirror or a locally built one (docker/base-images.sh) works alike.
ARG NODE_IMAGE=node:22-bookworm-slim

# The workspaces' manifests alone, without their scripts and descriptions: the dependency
# stages below rebuild only when a dependency changes (npm ci runs no scripts here).
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && find . -maxdepth 3 -name package.json -exec cp --parents {} /manifests \; \
 && cp package-lock.json /manifests/ \
 && find /manifests -name package.json -exec node -e "for (const f of process.argv.slice(1)) { \
      const p = JSON.parse(fs.readFileSync(f)); delete p.scripts; delete p.description; \
      fs.writeFileSync(f, JSON.stringify(p, null, 2)); }" {} +

# Every dependency, for the compile step. extra_ca (off by default): a CA certificate file npm
# must trust, for a proxy that intercepts TLS; a build secret, so it stays out of every image.
# The npm cache is a build cache mount: a rebuild after a lockfile change downloads the change.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests /manifests ./
RUN --mount=type=secret,id=extra_ca --mount=type=cache,target=/root/.npm \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    npm ci --ignore-scripts --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npm run build

# /app as the image runs it: production dependencies, the sources (assets are read beside
# them) and the compiled CLI, read-only for everyone, assembled here so that the image below
# gets it in one layer. Each part is made read-only in the layer that writes it: a chmod of
# node_modules in a later layer copies every file again (120 s on two cores).
FROM ${NODE_IMAGE} AS app
WORKDIR /app
COPY --from=manifests /manifests ./
RUN --mount=type=secret,id=extra_ca --mount=type=cache,target=/root/.npm \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund && chmod -R a-w /app/node_modules
COPY . .
COPY --from=build /app/apps/cli/dist ./apps/cli/dist
RUN find /app -path /app/node_modules -prune -o -exec chmod a-w {} +

FROM ${NODE_IMAGE}

# git: the local forge's pull request diffs (Changes tab) are read from the bare repositories.
RUN apt-get update && apt-get install -y --no-install-recommends git tini ca-certificates && rm -rf /var/lib/apt/lists/*
RUN groupadd --gid 1001 pullwright && useradd --uid 1001 --gid 1001 --no-create-home pullwright

WORKDIR /app
COPY --from=app /app /app

# Mount points owned by the service user, so fresh named volumes start writable:
# /srv/forge (the local forge, shared by every service at this one path) and
# /run/pullwright and /run/pullwright-api (the secrets `init-secrets` creates; only the API
# mounts the second).
RUN mkdir -p /srv/forge /run/pullwright /run/pullwright-api && chown 1001:1001 /srv/forge /run/pullwright /run/pullwright-api

ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/tmp/pullwright FORGE_DIR=/srv/forge
USER 1001:1001
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "apps/cli/bin/pullwright.js", "api"]
