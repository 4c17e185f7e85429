import { type EventSource, PullwrightError, ValidationError } from '@pullwright/core';
import { hmacSha256Matches, sanitizeUntrustedText } from '@pullwright/security';
import { z } from 'zod';

/** An event as a source's adapter reads it: its id at the source, and the text of the work. */
interface InboundEvent {
  eventId: string;
  title: string;
  /** Error text, a stack: what the model is given as the operation's context. */
  errorText: string | undefined;
  stack: string | undefined;
  url: string | undefined;
}

/** Header lookup, lower-case names (Node's IncomingMessage.headers). */
type Headers = (name: string) => string | undefined;

const GENERIC_SIGNATURE = 'x-pullwright-signature-256';
const SENTRY_SIGNATURE = 'sentry-hook-signature';
const SENTRY_RESOURCE = 'sentry-hook-resource';

const EventId = z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/, 'must be 1-200 of A-Z a-z 0-9 . _ : -');
const WebUrl = z.url({ protocol: /^https?$/ }).max(2000);

/** The generic source's body: the sender's own id for the event, a title and optional text. */
const GenericEvent = z.object({
  id: EventId,
  title: z.string().trim().min(1).max(500),
  text: z.string().max(50_000).optional(),
  url: WebUrl.optional(),
});

/** Sentry's issue-alert webhook (`Sentry-Hook-Resource: event_alert`): the parts the work needs. */
const SentryFrame = z.object({
  filename: z.string().nullish(),
  lineno: z.number().nullish(),
  function: z.string().nullish(),
});
const SentryAlert = z.object({
  action: z.string(),
  data: z.object({
    event: z.object({
      event_id: EventId,
      title: z.string().max(2000),
      culprit: z.string().max(2000).nullish(),
      web_url: WebUrl.nullish(),
      exception: z
        .object({
          values: z
            .array(
              z.object({
                type: z.string().nullish(),
                value: z.string().nullish(),
                stacktrace: z.object({ frames: z.array(SentryFrame).max(500).nullish() }).nullish(),
              }),
            )
            .max(20)
            .nullish(),
        })
        .nullish(),
    }),
    triggered_rule: z.string().max(500).nullish(),
  }),
});

/** What the signature check reads: missing, then wrong, each named with its header. */
function assertSigned(expected: { header: string; secret: string; prefix: string }, headers: Headers, raw: Buffer) {
  const given = headers(expected.header);
  if (!given) throw new PullwrightError('unauthorized', `missing ${expected.header} header`);
  if (
    !given.startsWith(expected.prefix) ||
    !hmacSha256Matches(expected.secret, raw, given.slice(expected.prefix.length))
  )
    throw new PullwrightError(
      'unauthorized',
      `${expected.header} does not match the body (wrong secret or altered body)`,
    );
}

function parseBody<S extends z.ZodType>(schema: S, raw: Buffer): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ValidationError('event body is not JSON', [{ field: 'body', reason: 'invalid JSON' }]);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ValidationError(
      'event body has not the shape this source sends',
      parsed.error.issues.map((i) => ({ field: ['body', ...i.path].join('.'), reason: i.message })),
    );
  }
  return parsed.data;
}

/** Frames innermost last, as Sentry lists them; the last 30 are what a person reads first. */
function sentryStack(frames: z.infer<typeof SentryFrame>[]): string {
  return frames
    .slice(-30)
    .map((f) => `  at ${f.function ?? '?'} (${f.filename ?? '?'}:${f.lineno ?? '?'})`)
    .join('\n');
}

/**
 * Checks a delivery's signature with its source's secret and reads the event out of it, or
 * returns `ignored` with the reason for a well-signed delivery that is not an event (Sentry's
 * installation and other resources). Every text is sanitized as untrusted input.
 */
export function readInboundEvent(
  source: EventSource,
  headers: Headers,
  raw: Buffer,
): InboundEvent | { ignored: string } {
  if (source.kind === 'generic') {
    assertSigned({ header: GENERIC_SIGNATURE, secret: source.secret, prefix: 'sha256=' }, headers, raw);
    const e = parseBody(GenericEvent, raw);
    return {
      eventId: e.id,
      title: sanitizeUntrustedText(e.title),
      errorText: e.text === undefined ? undefined : sanitizeUntrustedText(e.text),
      stack: undefined,
      url: e.url,
    };
  }
  assertSigned({ header: SENTRY_SIGNATURE, secret: source.secret, prefix: '' }, headers, raw);
  const resource = headers(SENTRY_RESOURCE);
  if (resource !== 'event_alert') return { ignored: `Sentry resource ${resource ?? '(none)'} is not an issue alert` };
  const alert = parseBody(SentryAlert, raw);
  if (alert.action !== 'triggered') return { ignored: `Sentry alert action ${alert.action}` };
  const { event } = alert.data;
  const exceptions = event.exception?.values ?? [];
  const errorText = exceptions.map((x) => `${x.type ?? 'Error'}: ${x.value ?? ''}`).join('\n');
  const frames = exceptions.flatMap((x) => x.stacktrace?.frames ?? []);
  return {
    eventId: event.event_id,
    title: sanitizeUntrustedText(`${event.title}${event.culprit ? ` in ${event.culprit}` : ''}`).slice(0, 500),
    errorText: errorText ? sanitizeUntrustedText(errorText) : undefined,
    stack: frames.length ? sanitizeUntrustedText(sentryStack(frames)) : undefined,
    url: event.web_url ?? undefined,
  };
}
