import { z } from 'zod';
import { BranchName, OperationType, RepoSlug } from '../operation.ts';
import { envSection } from './env-section.ts';
import { jsonText, longSecret, positiveInt } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

/**
 * One configured sender of `POST /v1/events/<name>`: how its requests are signed and read
 * (`generic`: HMAC-SHA256 of the body in `X-Pullwright-Signature-256`; `sentry`: an internal
 * integration's issue alert, `Sentry-Hook-Signature`), and the work each event becomes. The
 * repository is fixed here: an event cannot point work at another one.
 */
export const EventSource = z.strictObject({
  kind: z.enum(['generic', 'sentry']),
  secret: longSecret,
  repo: RepoSlug,
  type: OperationType.default('debug'),
  branch: BranchName.default('main'),
});
export type EventSource = z.infer<typeof EventSource>;

const EventSources = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'source names are lower-case words'),
  EventSource,
);

export const eventSettings = envSection(
  'Schedules and inbound events',
  {
    EVENT_SOURCES: envVariable(jsonText(EventSources), {
      doc: 'Senders of `POST /v1/events/<name>`, as JSON: `{"<name>": {"kind": "generic"|"sentry", "secret": "…", "repo": "owner/name", "type": "debug", "branch": "main"}}`. Each event becomes one operation on that repository (one per event id).',
      defaultDoc: 'none: every `POST /v1/events/…` is 404',
      readBy: READ_BY.api,
      secret: { parts: (sources) => Object.values(sources ?? {}).map((s) => s.secret) },
    }),
    SCHEDULE_MIN_INTERVAL_MS: envVariable(positiveInt, {
      doc: 'The shortest gap between two runs a repository’s `schedules:` entry may ask for; a shorter cron is refused at sync with this reason. One minute: cron’s own resolution without the seconds field.',
      default: '60000',
      readBy: READ_BY.api,
    }),
  },
  (env) => ({
    events: { sources: env.EVENT_SOURCES ?? {} },
    schedules: { minIntervalMs: env.SCHEDULE_MIN_INTERVAL_MS },
  }),
);
