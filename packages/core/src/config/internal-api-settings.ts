import { envSection } from './env-section.ts';
import { flag, longSecret, url } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

export const internalApiSettings = envSection(
  'Workers and the API',
  {
    INTERNAL_API_URL: envVariable(url, {
      doc: "Where workers reach the API's credential broker and model gateway (`/internal/v1/*`): a private address when the API has one.",
      defaultDoc: 'PUBLIC_URL',
      readBy: READ_BY.worker,
    }),
    WORKER_TOKEN: envVariable(longSecret, {
      doc: "Shared by the API and the workers: authorizes the broker and gateway routes only (`/internal/v1/*`), never the REST API. With it a worker holds no model key and no App key: it gets a per-job installation token from the API's broker and calls the model through the API's gateway, which meters each operation's spend against its budget.",
      defaultDoc: '`npm start`: none needed (the broker and gateway run in-process)',
      readBy: READ_BY.every,
      secret: true,
      needs: {
        worker: {
          level: 'recommended',
          why: 'this worker cannot use the credential broker and model gateway, so it needs the App key and model keys itself. Fix: the same long random value on the API and every worker',
        },
      },
    }),
    PRODUCTION_MODE: envVariable(flag, {
      doc: 'A worker refuses to start while it holds a long-lived key (a model key, the GitHub App private key) instead of only warning: those live in the API alone.',
      default: 'false',
      readBy: READ_BY.every,
    }),
  },
  (env) => ({
    internalApi: {
      /** INTERNAL_API_URL; unset: PUBLIC_URL (see `internalApiUrl`). */
      url: env.INTERNAL_API_URL?.replace(/\/+$/, ''),
      workerToken: env.WORKER_TOKEN,
      productionMode: env.PRODUCTION_MODE,
    },
  }),
);
