import type { Origin } from './operation.ts';

/** How every view names where an operation started (Slack's link, the PR body): one wording. */
export function originLabel(origin: Origin): { text: string; url: string | undefined } {
  switch (origin.kind) {
    case 'issue':
      return { text: `issue #${origin.number}`, url: origin.url };
    case 'schedule':
      return { text: `schedule ${origin.name} (${origin.cron}, tick ${origin.tick})`, url: undefined };
    case 'event':
      return { text: `${origin.source} event ${origin.eventId}`, url: origin.url };
  }
}
