import { describe, expect, it } from 'vitest';

/** The dashboard's timeline module, as the browser loads it (plain ES module, no build). */
const TIMELINE = '../apps/dashboard/public/timeline.js';
type Described = { text: string; tone: string; link?: string };
const { describeEvent, webLink } = (await import(TIMELINE)) as {
  describeEvent(e: { type: string; data: Record<string, unknown>; description?: Described }): Described;
  webLink(url: unknown): string | undefined;
};

describe('dashboard timeline: the line the API sent, and links', () => {
  it('shows the description the API attached (core describeEvent), or the type of an event without one', () => {
    const description = {
      text: 'CI red on abcdef1 (test): revision 1 of 2',
      tone: 'info',
      link: 'https://ci.example/runs/9',
    };
    expect(describeEvent({ type: 'ci_failure', data: {}, description })).toEqual(description);
    expect(describeEvent({ type: 'from_a_newer_worker', data: {} })).toEqual({
      text: 'from_a_newer_worker',
      tone: 'info',
    });
  });

  it('links only http(s) URLs', () => {
    expect(webLink('https://github.example/acme/api/issues/7')).toBe('https://github.example/acme/api/issues/7');
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', '//evil', 7, undefined])
      expect(webLink(bad)).toBeUndefined();
  });
});
