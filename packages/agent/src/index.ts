export * from './agent-loop.ts';
export * from './model-provider.ts';
export * from './providers/index.ts';
export * from './replay-provider.ts';
export * from './system-prompt.ts';
export * from './text-edit/index.ts';
export * from './tools/index.ts';
export * from './transcript-writer.ts';
