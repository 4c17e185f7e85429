// @vitest-environment happy-dom
import { type OperationEvent, withDescription } from '@pullwright/core';
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (e: object) => CardElement | null;
const { renderTimelineEntry } = await loadCard<{ renderTimelineEntry: Render }>('card-timeline.js');

const TS = '2026-11-24T10:11:12.000Z';
// As the API sends it: with its line from core's describeEvent.
const event = (type: string, data: Record<string, unknown>) =>
  withDescription({ id: '1-0', ts: TS, opId: 'op_1', type: type as OperationEvent['type'], data });

describe('a timeline line', () => {
  it('says what a status change means, with its time and the status it reached', () => {
    const li = renderTimelineEntry(event('status', { from: 'running', to: 'failed', reason: 'checks red\nmore' }))!;
    expect(li.className).toBe('ev ev-bad');
    expect(li.dataset).toMatchObject({ type: 'status', to: 'failed' });
    expect(li.querySelector('time')!.getAttribute('datetime')).toBe(TS);
    expect(li.querySelector('time')!.textContent).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(li.querySelector('span')!.textContent).toBe('Failed: checks red');
  });

  it('links an event that names a web page', () => {
    const li = renderTimelineEntry(
      event('ci_failure', {
        state: 'needs_human',
        headSha: 'abcdef123',
        checks: ['ci'],
        attempts: 2,
        runUrl: 'https://ci/run/9',
      }),
    )!;
    expect(li.querySelector('a')!.getAttribute('href')).toBe('https://ci/run/9');
    expect(li.querySelector('a')!.textContent).toBe(
      'CI red on abcdef1 (ci) after 2 automatic revisions: needs a person',
    );
  });

  it('names the instruction files an operation used, and an MCP server that did not start', () => {
    const used = renderTimelineEntry(
      event('instructions', {
        files: [{ path: 'AGENTS.md' }, { path: 'packages/x/AGENTS.md' }],
        skipped: [{ path: 'docs/huge.md', reason: 'too large' }],
      }),
    )!;
    expect(used.querySelector('span')!.textContent).toBe(
      'Repository instructions: AGENTS.md, packages/x/AGENTS.md; not read: docs/huge.md',
    );
    const failed = renderTimelineEntry(
      event('mcp', { server: 'docs', state: 'failed', required: false, reason: 'it exited with 2: no config' }),
    )!;
    expect(failed.className).toBe('ev ev-bad');
    expect(failed.querySelector('span')!.textContent).toBe(
      'MCP server docs did not start, going on without it: it exited with 2: no config',
    );
  });

  it('names job steps in words, never by their code names', () => {
    const text = (data: Record<string, unknown>) =>
      renderTimelineEntry(event('step', data))!.querySelector('span')!.textContent;
    expect(text({ step: 'publish', state: 'finished' })).toBe('Pull request published');
    expect(text({ step: 'merge_lock', state: 'started' })).toBe('Waiting for the merge lock');
    expect(text({ step: 'update_from_base', state: 'finished' })).toBe('Branch up to date with its base');
    expect(text({ step: 'release' })).toBe('Working copy released');
    expect(text({ step: 'some_new_step', state: 'finished' })).toBe('Some new step done');
    // A revision that changed nothing: the head's checks stand, not a red "Checks failed".
    expect(text({ step: 'verify', state: 'finished', files: [], passed: true, unchanged: true })).toBe(
      'Nothing changed: the checks on the head stand',
    );
    const merged = renderTimelineEntry(event('status', { from: 'merging', to: 'merged', mergeSha: 'c8ae3e7aa1' }))!;
    expect(merged.querySelector('span')!.textContent).toBe('Merged as c8ae3e7');
  });

  it('has no line for usage and checkpoint events', () => {
    expect(renderTimelineEntry(event('usage', { costUsd: 0.1 }))).toBeNull();
    expect(renderTimelineEntry(event('checkpoint', { checkpoint: 'pushed' }))).toBeNull();
  });
});
