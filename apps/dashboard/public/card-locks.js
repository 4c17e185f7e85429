// What this operation holds and waits for on the lock board: locked files, waits, overlapping branches, the merge lock.
import { h } from './dom.js';

/** @import { Operation } from '@pullwright/core' */

/**
 * `GET /v1/board?repo=` (the API's board snapshot), the parts this card reads.
 * @typedef {object} BoardRepo
 * @property {string} repo
 * @property {Array<{ path: string, opId: string }>} [fileLocks]
 * @property {{ opId: string } | null} [mergeLock]
 * @property {Array<{ opId: string, files: string[], holder: string }>} [waiting]
 * @property {Array<{ files: string[], branches: Array<{ branch: string, opId: string }> }>} [overlaps]
 * @typedef {{ repos?: BoardRepo[] }} Board
 */

/** @param {string} text */
function item(text) {
  return h('li', {}, h('code', {}, text));
}

/**
 * @param {string} title
 * @param {string[]} lines
 */
function section(title, lines) {
  return lines.length ? [h('h3', {}, title), h('ul', { class: 'plain' }, lines.map(item))] : null;
}

/**
 * @param {Board | null | undefined} board  undefined while it loads, null when it could not be loaded.
 * @param {Pick<Operation, 'id' | 'repo'>} op
 */
export function renderLocks(board, op) {
  if (board === undefined) return h('p', { class: 'muted' }, 'Loading…');
  if (board === null) return h('p', { class: 'muted' }, 'The lock board could not be loaded.');
  const repo = (board.repos ?? []).find((r) => r.repo === op.repo);
  // Only what concerns this operation: entries that name it.
  /** @param {unknown} i */
  const names = (i) => JSON.stringify(i).includes(op.id);
  const locks = (repo?.fileLocks ?? []).filter(names);
  const waiting = (repo?.waiting ?? []).filter(names);
  const overlaps = (repo?.overlaps ?? []).filter(names);
  const merging = repo?.mergeLock && repo.mergeLock.opId === op.id;
  if (!locks.length && !overlaps.length && !waiting.length && !merging) {
    return h('p', { class: 'muted' }, 'This operation holds no locks and overlaps no open branch.');
  }
  return h(
    'div',
    {},
    merging ? h('p', {}, 'Holds the merge lock of this repository.') : null,
    section(
      'Files locked',
      locks.map((l) => l.path),
    ),
    section(
      'Waiting on',
      waiting.map((w) => `${w.files.join(', ')} — held by ${w.holder}`),
    ),
    section(
      'Overlaps',
      overlaps.map((o) => `${o.files.join(', ')} — ${o.branches.map((b) => b.branch).join(' / ')}`),
    ),
  );
}
