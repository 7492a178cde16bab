# One image for every service; the command picks the service (see docker-compose.yml and k8s/):
#   node services/<name>/src/main.js     (admin CLI: node scripts/cli.js, demo users: node scripts/seed.js)
# The build stage compiles TypeScript (npm run build → dist/); the runtime stage holds only the
# compiled JavaScript, its run-time files (migrations, pages) and production dependencies.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm run build

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /src/dist ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force && mkdir -p .studium && chown node:node .studium
USER node
CMD ["node", "services/edge/src/main.js"]
