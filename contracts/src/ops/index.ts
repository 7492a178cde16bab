export * from './enrollment.ts';
