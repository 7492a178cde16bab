export * from './ai-chat.ts';
export * from './course-access.ts';
export * from './courses.ts';
export * from './enrollment.ts';
export * from './homework.ts';
export * from './knowledge.ts';
export * from './lesson-context.ts';
export * from './lessons.ts';
