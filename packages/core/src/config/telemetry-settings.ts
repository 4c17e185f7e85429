import { z } from 'zod';
import { envSection } from './env-section.ts';
import { text, url } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

export const telemetrySettings = envSection(
  'Logs and traces',
  {
    LOG_LEVEL: envVariable(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), {
      doc: 'pino log level.',
      default: 'info',
      readBy: READ_BY.every,
    }),
    OTEL_EXPORTER_OTLP_ENDPOINT: envVariable(url, {
      doc: 'OTLP/HTTP collector for traces (`http://collector:4318`; `/v1/traces` is added).',
      defaultDoc: 'no traces are exported (spans cost nothing without a provider)',
      readBy: READ_BY.every,
    }),
    OTEL_SERVICE_NAME: envVariable(text, {
      doc: "The traces' service name.",
      defaultDoc: '`pullwright-<api|worker|all>`',
      readBy: READ_BY.every,
    }),
  },
  (env) => ({
    logLevel: env.LOG_LEVEL,
    /** Traces are exported here when set. */
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    otelServiceName: env.OTEL_SERVICE_NAME,
  }),
);
