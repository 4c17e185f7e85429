import { envSection } from './env-section.ts';
import { tcpPort, text, url } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

const linksNeed = (what: string) => ({
  level: 'recommended' as const,
  why: `${what} link to it; unset, they point at http://HOST:PORT of this process, which nobody else can open. Fix: the dashboard's address, the same for the API and every worker`,
});

export const networkSettings = envSection(
  'Listening and links',
  {
    PORT: envVariable(tcpPort, {
      doc: 'HTTP port of the API and the dashboard.',
      default: '3000',
      readBy: READ_BY.api,
    }),
    WORKER_PORT: envVariable(tcpPort, {
      doc: "`pullwright worker`: the worker's own `/healthz`, `/readyz` and `/metrics` (0 picks a free port).",
      default: '3001',
      readBy: READ_BY.workerAlone,
    }),
    HOST: envVariable(text, {
      doc: 'Interface to listen on; the images set `0.0.0.0`. Loopback by default, so a laptop run stays private.',
      default: '127.0.0.1',
      readBy: READ_BY.every,
    }),
    PUBLIC_URL: envVariable(url, {
      doc: 'Where people reach the dashboard: Slack messages, PR bodies, tracking comments and the local forge’s pull request pages link here.',
      defaultDoc: 'http://HOST:PORT',
      readBy: READ_BY.every,
      needs: {
        api: linksNeed('Slack messages and the GitHub sign-in callback'),
        worker: linksNeed('the pull requests and tracking comments this worker writes'),
      },
    }),
  },
  (env) => ({
    port: env.PORT,
    workerPort: env.WORKER_PORT,
    host: env.HOST,
    /** Base URL of the dashboard, without a trailing slash. */
    publicUrl: (env.PUBLIC_URL ?? `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.PORT}`).replace(
      /\/+$/,
      '',
    ),
  }),
);
