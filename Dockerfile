# The production image: every service and the operator as compiled JavaScript run by plain `node`
# (no tsx at run time), production dependencies only, non-root, fit for a read-only root filesystem.
#   docker build -t <registry>/attesto:<version> .
# The chart picks the entry point per Deployment: `node services/<svc>/src/main.js` or
# `node operator/src/main.js`; alone, the image runs the all-in-one launcher.

# 1. Build: the runtime file tree in dist/app, by the same `npm run build` CI tests
#    (test/build/runtime-tree.test.ts builds it and starts a service from it without Docker).
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund --ignore-scripts && npm run build

# 2. Production dependencies only (`--omit=dev`), from the lock file and the workspace manifests.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY services/lib/runtime/package.json services/lib/runtime/
COPY services/lib/store/package.json services/lib/store/
COPY services/lib/protocol/package.json services/lib/protocol/
COPY services/lib/proto/package.json services/lib/proto/
COPY services/lib/tenant-client/package.json services/lib/tenant-client/
COPY services/auth-server/package.json services/auth-server/
COPY services/credential-issuer/package.json services/credential-issuer/
COPY services/verifier/package.json services/verifier/
COPY services/holder/package.json services/holder/
COPY services/trust-registry/package.json services/trust-registry/
COPY services/schema-registry/package.json services/schema-registry/
COPY services/scheduler/package.json services/scheduler/
COPY services/ledger/package.json services/ledger/
COPY services/all-in-one/package.json services/all-in-one/
COPY operator/package.json operator/
COPY cli/package.json cli/
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

# 3. Runtime: the dependencies, then the built tree over them (its package.json files point
#    `exports` at .js; node_modules/@attesto/* link the workspaces as npm does). Owned by root,
#    run as uid 10001: nothing in /app is writable by the process.
FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/ ./
COPY --from=build /src/dist/app/ ./
RUN chown -R root:root /app && chmod -R a+rX,go-w /app
USER 10001:10001
EXPOSE 8081-8088 9081-9088 8090
CMD ["node", "--max-semi-space-size=32", "services/all-in-one/src/main.js"]
