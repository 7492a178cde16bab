export * from './common.ts';
export * from './events.ts';
export * from './ops/index.ts';
export * from './principal.ts';
export * from './refusal.ts';
export * from './release.ts';
export * from './tool.ts';
export * from './tools/index.ts';
