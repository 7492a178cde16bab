export * from './ai-chat.ts';
export * from './courses.ts';
export * from './enrollment.ts';
