export * from './courses.ts';
export * from './enrollment.ts';
export * from './knowledge.ts';
