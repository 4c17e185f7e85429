export * from './assert-no-eviction.ts';
export * from './retry-delay.ts';
export * from './stalled-job-reaper.ts';
export * from './start-worker.ts';
export * from './stuck-watchdog.ts';
export * from './worker-health-server.ts';
