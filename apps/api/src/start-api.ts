import { createServer, type Server } from 'node:http';
import { listenOrExplain } from '@pullwright/core';
import type { Runtime } from '@pullwright/pipeline';
import { createApp } from './create-app.ts';

export interface RunningApi {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startApi(runtime: Runtime): Promise<RunningApi> {
  const app = createApp(runtime);
  const server = createServer(app);
  await listenOrExplain(server, runtime.config.port, runtime.config.host, 'PORT');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : runtime.config.port;
  const host = runtime.config.host === '0.0.0.0' ? '127.0.0.1' : runtime.config.host;
  return {
    server,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
