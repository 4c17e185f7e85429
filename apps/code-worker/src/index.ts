export * from './start-worker.ts';
