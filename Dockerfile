# One image for every service; the command picks the service (see docker-compose.yml and k8s/).
FROM node:20-bookworm-slim
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund
USER node
ENV NODE_ENV=production
CMD ["npx", "tsx", "services/edge/src/main.ts"]
