export * from './courses.ts';
export * from './enrollment.ts';
