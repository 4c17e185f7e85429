export * from './assert-no-eviction.ts';
export * from './stalled-job-reaper.ts';
export * from './start-worker.ts';
export * from './stuck-watchdog.ts';
export * from './transient-errors.ts';
export * from './worker-health-server.ts';
