import type { Server } from 'node:http';
import type { Runtime } from '@pullwright/pipeline';
import { createApp } from './create-app.ts';

export interface RunningApi {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startApi(runtime: Runtime): Promise<RunningApi> {
  const app = createApp(runtime);
  const server = app.listen(runtime.config.port, runtime.config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
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
