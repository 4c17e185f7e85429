// Queue health: jobs per state, workers online and how long the oldest job has waited. The
// words are the operator's, not the queue library's (its "delayed" and "failed" states).
import { api } from './api.js';
import { duration, fill, h } from './dom.js';

function stat(label, value, tone = '', title = '') {
  return h(
    'div',
    { class: `stat ${tone}`.trim(), ...(title ? { title } : {}) },
    h('span', { class: 'stat-value' }, value),
    h('span', { class: 'stat-label' }, label),
  );
}

/** Renders into `root` and returns refresh(); errors show in place without breaking the page. */
export function queueHealth(root) {
  fill(root, h('div', { class: 'stats stats-loading', 'aria-busy': 'true' }, 'Loading queue health…'));
  async function refresh() {
    try {
      const health = await api('GET', '/v1/queue/health');
      const c = health.counts;
      const waiting = (c.waiting ?? 0) + (c.prioritized ?? 0);
      const workers = health.workers === null ? '?' : String(health.workers.length);
      const oldest = health.oldestWaiting;
      fill(
        root,
        h(
          'div',
          { class: 'stats', id: 'queue-health', 'aria-label': 'Queue health' },
          stat('waiting', String(waiting), waiting > 0 && health.workers?.length === 0 ? 'warn' : ''),
          stat('running', String(c.active ?? 0)),
          stat(
            'scheduled',
            String(c.delayed ?? 0),
            '',
            'Retries after a transient error, and CI follow-ups waiting for the checks to settle',
          ),
          stat(
            'jobs given up',
            String(c.failed ?? 0),
            c.failed ? 'bad' : '',
            'Jobs a worker stopped retrying (the operation says why); details at /admin/queues/',
          ),
          stat(
            'workers online',
            workers,
            health.workers?.length === 0 ? 'bad' : 'good',
            health.workers === null ? 'This Redis does not allow CLIENT LIST' : '',
          ),
          stat(
            'oldest waiting',
            oldest ? duration(oldest.waitingMs) : '—',
            oldest && oldest.waitingMs > 5 * 60_000 ? 'warn' : '',
            oldest ? `operation ${oldest.opId}` : 'nothing is waiting',
          ),
        ),
      );
    } catch (err) {
      if (err.status === 401) return;
      fill(root, h('div', { class: 'stats stats-error', role: 'alert' }, `Queue health unavailable: ${err.message}`));
    }
  }
  refresh();
  return refresh;
}
