export * from './config.ts';
export * from './errors.ts';
export * from './feature-request.ts';
export * from './listen-or-explain.ts';
export * from './logger.ts';
export * from './operation.ts';
export * from './state-machine.ts';
export * from './transient-errors.ts';
