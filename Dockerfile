# API: REST v1, webhooks, SSE and the dashboard. Stateless: runs no repository code and keeps
# nothing another process needs on its disk (transcripts and artifacts live in Redis).
# The CLI is compiled to JavaScript (apps/cli/dist) with the dev toolchain; the image
# itself installs production dependencies only and never runs TypeScript.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
COPY apps ./apps
RUN npm ci --no-audit --no-fund

FROM node:22-bookworm-slim

# git: the local forge's pull request diffs (Changes tab) are read from the bare repositories.
RUN apt-get update && apt-get install -y --no-install-recommends git tini ca-certificates && rm -rf /var/lib/apt/lists/*
RUN groupadd --gid 1001 pullwright && useradd --uid 1001 --gid 1001 --no-create-home pullwright

WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
COPY apps ./apps
COPY --from=build /app/apps/cli/dist ./apps/cli/dist
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force && chmod -R a-w /app

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
