export * from './config.ts';
export * from './errors.ts';
export * from './logger.ts';
export * from './operation.ts';
export * from './operation-event.ts';
export * from './parse-unified-diff.ts';
export * from './state-machine.ts';
export * from './transient-errors.ts';
