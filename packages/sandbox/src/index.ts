export * from './command-runner.ts';
export * from './output-buffer.ts';
export * from './process-runner.ts';
export * from './safe-env.ts';
