import { describe, expect, it } from 'vitest';

/** The dashboard's timeline module, as the browser loads it (plain ES module, no build). */
const TIMELINE = '../apps/dashboard/public/timeline.js';
type Described = { text: string; tone: string; link?: string };
const { describeEvent, webLink } = (await import(TIMELINE)) as {
  describeEvent(e: { type: string; data: Record<string, unknown> }): Described;
  webLink(url: unknown): string | undefined;
};

describe('dashboard timeline: red CI and where work came from', () => {
  const head = { headSha: 'abcdef1234567', checks: ['test'], preExisting: ['lint'] };
  it.each<[string, Record<string, unknown>, Described]>([
    [
      'a revision',
      { ...head, state: 'revision_queued', attempt: 1, of: 2, runUrl: 'https://ci.example/runs/9' },
      { text: 'CI red on abcdef1 (test): revision 1 of 2', tone: 'info', link: 'https://ci.example/runs/9' },
    ],
    [
      'the limit',
      { ...head, state: 'needs_human', attempts: 2 },
      { text: 'CI red on abcdef1 (test) after 2 automatic revisions: needs a person', tone: 'bad' },
    ],
    [
      'a base already red',
      { ...head, state: 'pre_existing', runUrl: 'javascript:alert(1)' },
      { text: 'CI red on abcdef1 only where the base is red too (lint): no revision', tone: 'info' },
    ],
  ])('%s', (_name, data, expected) => {
    expect(describeEvent({ type: 'ci_failure', data })).toEqual(expected);
  });

  it('links only http(s) URLs', () => {
    expect(webLink('https://github.example/acme/api/issues/7')).toBe('https://github.example/acme/api/issues/7');
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', '//evil', 7, undefined])
      expect(webLink(bad)).toBeUndefined();
  });
});
