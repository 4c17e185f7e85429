// The review ledger: every change request (GitHub, Slack, dashboard, REST) and what each revision did about it.
import { h, shortSha } from './dom.js';

const SOURCE_WORDS = {
  github: 'GitHub',
  slack: 'Slack',
  dashboard: 'dashboard',
  api: 'REST',
  merge_train: 'merge train',
};

function outcomeOf(entry, round) {
  if (entry.outcome === 'fixed') return { text: `Done in ${shortSha(round.headSha)}`, tone: 'good-text' };
  if (entry.outcome === 'declined') return { text: `Declined: ${entry.note || 'no reason given'}`, tone: 'warn-text' };
  if (entry.outcome === 'question') return { text: `Question back: ${entry.note || ''}`, tone: 'warn-text' };
  if (round.state === 'failed') return { text: 'Not done: the revision failed', tone: 'bad' };
  return { text: 'Working on it…', tone: 'muted' };
}

function roundState(round) {
  if (round.state === 'working') return 'in progress';
  if (round.state === 'failed') return `failed: ${(round.error ?? '').split('\n')[0]}`;
  return round.headSha && round.headSha !== round.fromSha ? `pushed ${shortSha(round.headSha)}` : 'no change needed';
}

/**
 * One block per round, newest first; `onSince(sha)` (optional) shows the changes a round
 * made (its interdiff) when its link is clicked.
 */
export function renderLedger(ledger, onSince) {
  const rounds = Array.isArray(ledger) ? ledger : [];
  if (!rounds.length) return h('p', { class: 'muted', id: 'ledger-empty' }, 'No changes requested yet.');
  return h(
    'ol',
    { class: 'ledger', id: 'ledger', reversed: true },
    rounds
      .map((round, i) =>
        h(
          'li',
          { class: `ledger-round ledger-${round.state}`, dataset: { round: String(i + 1), state: round.state } },
          h(
            'p',
            { class: 'ledger-head' },
            h('strong', {}, `Round ${i + 1}`),
            ` · ${roundState(round)}`,
            onSince && round.state === 'pushed' && round.fromSha && round.headSha !== round.fromSha
              ? [
                  ' · ',
                  h(
                    'a',
                    {
                      href: '#',
                      class: 'ledger-since',
                      onclick: (e) => {
                        e.preventDefault();
                        onSince(round.fromSha);
                      },
                    },
                    `changes since ${shortSha(round.fromSha)}`,
                  ),
                ]
              : null,
          ),
          h(
            'ul',
            { class: 'plain ledger-entries' },
            round.entries.map((entry) => {
              const outcome = outcomeOf(entry, round);
              const where = entry.path ? ` on ${entry.path}${entry.line ? `:${entry.line}` : ''}` : '';
              return h(
                'li',
                { class: 'ledger-entry', dataset: { source: entry.source, outcome: entry.outcome ?? 'open' } },
                h(
                  'span',
                  { class: 'ledger-who' },
                  `${entry.user} (${SOURCE_WORDS[entry.source] ?? entry.source})${where}`,
                ),
                h('span', { class: 'ledger-text' }, entry.text),
                h('span', { class: `ledger-outcome ${outcome.tone}` }, outcome.text),
              );
            }),
          ),
        ),
      )
      .reverse(),
  );
}
