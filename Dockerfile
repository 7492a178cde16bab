# One image for every service; the command picks the service (see docker-compose.yml and k8s/).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY contracts/package.json contracts/
COPY libs/platform/package.json libs/platform/
COPY libs/testing/package.json libs/testing/
COPY services/edge/package.json services/edge/
COPY services/enrollment/package.json services/enrollment/
RUN npm ci --no-audit --no-fund
COPY . .
USER node
ENV NODE_ENV=production
CMD ["npx", "tsx", "services/edge/src/main.ts"]
