import { type Attributes, type Span, SpanStatusCode, trace } from '@opentelemetry/api';

/** Every span Pullwright makes comes from this tracer; a no-op until a provider is registered. */
export const TRACER_NAME = 'pullwright';

/**
 * Runs `fn` inside an active span named `name` (its children nest under it), ending it when
 * `fn` settles. A failure marks the span with the error's class name only: error messages
 * can carry repository text, and traces leave the process unredacted.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.name ?? 'Error' });
      throw err;
    } finally {
      span.end();
    }
  });
}
