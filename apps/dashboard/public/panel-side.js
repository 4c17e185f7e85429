// The side column: what the operation does now, its usage, the timeline, its locks, its run record.
import { renderLocks } from './card-locks.js';
import { renderProgress } from './card-progress.js';
import { renderTimelineEntry } from './card-timeline.js';
import { renderUsage } from './card-usage.js';
import { card, fill, h } from './dom.js';

/** @import { Operation } from '@pullwright/core' */
/** @import { Session } from './api.js' */
/** @import { OperationStore } from './operation-store.js' */

/**
 * @param {OperationStore} store
 * @param {Session} session
 * @param {HTMLElement} record  The run record panel.
 */
export function sidePanel(store, session, record) {
  const progress = h('div', { id: 'progress' });
  const usage = h('div', { id: 'usage' });
  const board = h('div', { id: 'board' });
  const timeline = h('ol', { class: 'timeline', id: 'timeline' });
  const timelineEmpty = h('p', { class: 'muted' }, 'Waiting for the first event…');
  const op = () => /** @type {Operation} */ (store.get().op);

  const tick = () => fill(progress, renderProgress(op(), store.get().events, Date.now()));
  store.watch(['op', 'events'], tick);
  store.watch(['op'], (s) => fill(usage, renderUsage(s.op.usage, s.op.budget, session.budget, s.op.budgetContract)));
  store.watch(['board'], (s) => fill(board, renderLocks(s.board, op())));
  let drawn = 0;
  store.watch(['events'], (s) => {
    // Newest first: what is happening now is always in view, with no scrolling to manage.
    for (const e of s.events.slice(drawn)) {
      const line = renderTimelineEntry(e);
      if (!line) continue;
      timelineEmpty.remove();
      timeline.prepend(line);
    }
    drawn = s.events.length;
  });

  return {
    element: h(
      'aside',
      { class: 'op-side' },
      card('Now', 'op-progress', progress),
      card('Usage', 'op-usage', usage),
      card('Timeline · newest first', 'op-timeline', timelineEmpty, timeline),
      card('Locks and overlaps', 'op-board', board),
      card('Run record', 'op-run-record', record),
    ),
    /** Redraws "Now": its times count up between events. */
    tick,
  };
}
