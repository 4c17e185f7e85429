export * from './config.ts';
export * from './errors.ts';
export * from './listen-or-explain.ts';
export * from './logger.ts';
export * from './operation.ts';
export * from './review-ledger.ts';
export * from './state-machine.ts';
export * from './transient-errors.ts';
