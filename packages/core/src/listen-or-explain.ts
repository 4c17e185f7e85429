import type { Server } from 'node:http';
import { PullwrightError } from './errors.ts';

/**
 * Listens, or fails with one line naming the variable, the host and the port: a port in
 * use or not allowed is a start-up error, never an unhandled 'error' event or a hang.
 */
export function listenOrExplain(server: Server, port: number, host: string, variable: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EADDRINUSE'
          ? 'the address is already in use'
          : err.code === 'EACCES'
            ? 'permission denied'
            : err.code === 'EADDRNOTAVAIL'
              ? 'HOST is not an address of this machine'
              : err.message;
      reject(new PullwrightError('config_invalid', `${variable}: cannot listen on ${host}:${port}: ${why}`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
