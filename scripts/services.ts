/** Every deployable that `npm start` runs, with its entry point and health port. */
export const SERVICES = [
  { name: 'enrollment', entry: 'services/enrollment/src/main.ts', healthPort: 9101 },
  { name: 'courses', entry: 'services/courses/src/main.ts', healthPort: 9102 },
  { name: 'mailer', entry: 'services/mailer/src/main.ts', healthPort: 9103 },
  { name: 'homework', entry: 'services/homework/src/main.ts', healthPort: 9105 },
  { name: 'ai-chat', entry: 'services/ai-chat/src/main.ts', healthPort: 9107 },
  { name: 'lessons', entry: 'services/lessons/src/main.ts', healthPort: 9104 },
  { name: 'knowledge', entry: 'services/knowledge/src/main.ts', healthPort: 9106 },
  { name: 'reporting', entry: 'services/reporting/src/main.ts', healthPort: 9108 },
  { name: 'edge', entry: 'services/edge/src/main.ts', healthPort: null },
] as const;
