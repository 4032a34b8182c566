# cloudcall's MCP server as a container: the bundle (apps/mcp-server/dist: main.js and the chunks
# it loads on demand, every dependency inside) on a small Node 20 runtime, as a non-root user. See
# docs/team-service.md.
#
#   docker build -t cloudcall-mcp .
#   docker run --rm -p 127.0.0.1:3333:3333 cloudcall-mcp

# --- build: the workspace, its lockfile, the bundle ---------------------------------------------
FROM node:20.19-bookworm-slim AS build
ENV TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 CI=true
RUN npm install --global --no-fund --no-audit pnpm@10.34.9
WORKDIR /src
# Every dependency, from the lockfile alone, into pnpm's store: this layer is rebuilt only when the
# lockfile (or the workspace file, whose catalog and build allowances it follows) changes, not on
# every source change.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
# The sources, then node_modules from that store alone (no registry), then the bundle.
COPY . .
RUN pnpm install --frozen-lockfile --offline \
 && pnpm exec turbo run build --filter=@cloudcall/mcp-server... --output-logs=errors-only \
 && node apps/mcp-server/dist/main.js --version

# --- runtime: node and the bundle ------------------------------------------------------------------
FROM node:20.19-alpine AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /src/apps/mcp-server/dist/ ./
# The image's own unprivileged user; nothing here is writable by it.
USER node
EXPOSE 3333
# Stateless replicas, each caller's own API token passed through. Every flag can be changed
# with its CLOUDCALL_ variable (CLOUDCALL_AUTH=static, CLOUDCALL_CLIENT_KEYS=/keys/client-keys...).
ENV CLOUDCALL_TRANSPORT=http \
    CLOUDCALL_HOST=0.0.0.0 \
    CLOUDCALL_PORT=3333 \
    CLOUDCALL_STATELESS=1 \
    CLOUDCALL_AUTH=token-passthrough
# Asked on the port the server listens on, also when CLOUDCALL_PORT is changed at `docker run`;
# node itself asks, so the check needs no tool the runtime image may lack.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.CLOUDCALL_PORT||3333)+'/healthz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node runs as PID 1 without a shell in between, so SIGTERM reaches the server (which drains).
ENTRYPOINT ["node", "--enable-source-maps", "/app/main.js"]
