# The ObjectQL server image (docs/deploy.md). Build: docker build -t objectql .
# Node 22: the AWS SDK behind the s3 storage backend drops Node 20 in 2027.

# Build with every dependency, then keep only the production ones.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY kernel ./kernel
COPY client ./client
COPY server ./server
COPY plugins ./plugins
COPY drivers ./drivers
COPY bin ./bin
COPY test/tck ./test/tck
# Studio's app (plugins/studio/app) is bundled by this script during the build.
COPY scripts/build-studio.mjs ./scripts/build-studio.mjs
# `npm ci` runs `prepare`, which builds dist/; then the dev dependencies go.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
ENV NODE_ENV=production PORT=3000
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json objectql.config.ts ./
COPY bin/objectql.js ./bin/objectql.js
COPY metadata ./metadata
COPY deploy ./deploy
# Where the sample config keeps its SQLite file and uploads; the deploy config uses neither.
RUN mkdir -p data uploads && chown node:node data uploads
USER node
EXPOSE 3000
# No curl in the slim image: Node asks the readiness route (503 while draining or a dependency is down).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm start` runs, in production. docker-compose.yml runs deploy/objectql.config.ts instead.
CMD ["node", "bin/objectql.js", "serve", "--config", "objectql.config.ts"]
