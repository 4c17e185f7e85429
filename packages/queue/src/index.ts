export * from './code-queue.ts';
export * from './job-schemas.ts';
export * from './operation-events.ts';
export * from './operation-inbox.ts';
export * from './operation-store.ts';
export * from './redis-keys.ts';
export * from './redis-server.ts';
