import { createServer, type Server } from 'node:http';
import { listenOrExplain } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { type AppOptions, createApp } from './create-app.ts';
import { startScheduleWorker } from './schedule-worker.ts';
import { createSlackServices } from './slack-services.ts';
import { type SlackSocketMode, startSlackSocketMode } from './slack-socket-mode.ts';

export interface RunningApi {
  server: Server;
  url: string;
  /** Present with SLACK_APP_TOKEN: Slack's requests over a Socket Mode connection. */
  socketMode: SlackSocketMode | undefined;
  close(): Promise<void>;
}

function socketModeFor(runtime: Runtime): SlackSocketMode | undefined {
  const slack = createSlackServices(runtime);
  if (!slack?.appToken) return undefined;
  return startSlackSocketMode(slack, slack.appToken, runtime.config.slack.apiUrl);
}

/**
 * DEFAULT_REPO's schedules are armed at start-up (every API process does it; syncing is
 * idempotent). Other repositories sync with `POST /v1/schedules/sync`. A bad file does not
 * stop the API: it is logged with the field, and the sync endpoint answers it in full.
 */
async function syncDefaultRepoSchedules(runtime: Runtime): Promise<void> {
  const repo = runtime.config.defaultRepo;
  if (!repo || !(await runtime.forge.repositoryExists(repo).catch(() => false))) return;
  await runtime.scheduledWork.sync(repo).catch((err: unknown) => {
    runtime.logger.warn({ repo, err: runtime.redactor.redact((err as Error).message) }, 'schedules not synced');
  });
}

export async function startApi(runtime: Runtime, options: AppOptions = {}): Promise<RunningApi> {
  const app = createApp(runtime, options);
  const server = createServer(app);
  await listenOrExplain(server, runtime.config.port, runtime.config.host, 'PORT');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : runtime.config.port;
  const host = runtime.config.host === '0.0.0.0' ? '127.0.0.1' : runtime.config.host;
  const socketMode = socketModeFor(runtime);
  const schedules = await startScheduleWorker(runtime);
  await syncDefaultRepoSchedules(runtime);
  return {
    server,
    url: `http://${host}:${port}`,
    socketMode,
    close: async () => {
      await socketMode?.close();
      await schedules.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
