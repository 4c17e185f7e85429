// One timeline line per event (newest first on the page); usage and checkpoint events get none.
import { clock, h } from './dom.js';
import { describeEvent } from './timeline.js';

/** @import { DescribedEvent } from '@pullwright/core' */

/** Too frequent or too internal for the timeline; they still refresh the record. */
const QUIET_EVENTS = new Set(['usage', 'checkpoint']);

/**
 * The line for one event, or null for a quiet one.
 * @param {DescribedEvent} e
 */
export function renderTimelineEntry(e) {
  if (QUIET_EVENTS.has(e.type)) return null;
  const d = describeEvent(e);
  const to = typeof e.data?.to === 'string' ? e.data.to : undefined;
  return h(
    'li',
    { class: `ev ev-${d.tone}`, dataset: { type: e.type, ...(to ? { to } : {}) } },
    h('time', { datetime: e.ts }, clock(e.ts)),
    d.link ? h('a', { href: d.link }, d.text) : h('span', {}, d.text),
  );
}
