import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { TRACER_NAME } from '@pullwright/core';
import type { Forge } from './forge.ts';

/** Answers computed in memory (a path, a URL): not forge calls worth a span. */
const UNTRACED = new Set(['constructor', 'cloneUrl', 'repoDir', 'hasRepository']);

function settle(span: Span, ok: boolean, err?: unknown): void {
  if (!ok) span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.name ?? 'Error' });
  span.end();
}

/**
 * The forge with a trace span around every call that returns a promise (`forge.<method>`,
 * with the repository): pushes, pull requests, merges and comments show in an operation's
 * trace next to the steps that made them. Methods that only compute a path or URL are passed
 * through, and so is `instanceof` (the proxy keeps the forge's prototype).
 */
export function tracedForge<F extends Forge>(forge: F): F {
  return new Proxy(forge, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      // Bound to the forge itself: its methods read private fields, which a proxy does not have.
      if (typeof prop !== 'string' || UNTRACED.has(prop)) return value.bind(target);
      return function traced(this: unknown, ...args: unknown[]) {
        const attributes = typeof args[0] === 'string' ? { 'pullwright.repo': args[0] } : {};
        return trace.getTracer(TRACER_NAME).startActiveSpan(`forge.${prop}`, { attributes }, (span) => {
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(target, args);
          } catch (err) {
            settle(span, false, err);
            throw err;
          }
          if (result instanceof Promise) {
            return result.then(
              (v) => {
                settle(span, true);
                return v;
              },
              (err: unknown) => {
                settle(span, false, err);
                throw err;
              },
            );
          }
          span.end();
          return result;
        });
      };
    },
  });
}
