/** Every deployable that `npm start` runs, with its entry point and health port. */
export const SERVICES = [
  { name: 'enrollment', entry: 'services/enrollment/src/main.ts', healthPort: 9101 },
  { name: 'courses', entry: 'services/courses/src/main.ts', healthPort: 9102 },
  { name: 'mailer', entry: 'services/mailer/src/main.ts', healthPort: 9103 },
  { name: 'reporting', entry: 'services/reporting/src/main.ts', healthPort: 9107 },
  { name: 'edge', entry: 'services/edge/src/main.ts', healthPort: null },
] as const;
