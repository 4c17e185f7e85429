export { codeWorkerOptions, type RunningWorker, startWorker } from './start-worker.ts';
export { startWorkerHealthServer } from './worker-health-server.ts';
