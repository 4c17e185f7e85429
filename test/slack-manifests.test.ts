import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SLACK_COMMANDS } from '@pullwright/slack';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/** Where people copy the Slack app manifests from. */
const SLACK_DOC = path.resolve(import.meta.dirname, '../docs/slack.md');

interface Manifest {
  features: { slash_commands: { command: string; url?: string; description: string; usage_hint?: string }[] };
  settings: { socket_mode_enabled: boolean; event_subscriptions: { request_url?: string } };
}

/** The YAML blocks of the document that are Slack app manifests. */
function manifests(): Manifest[] {
  const text = readFileSync(SLACK_DOC, 'utf8');
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1]!.replace(/^ {3}/gm, ''))
    .filter((yaml) => yaml.includes('slash_commands:'))
    .map((yaml) => parse(yaml) as Manifest);
}

describe('the Slack app manifests people paste', () => {
  const [socket, http] = manifests();

  it('are two: Socket Mode first, then HTTP', () => {
    expect(manifests()).toHaveLength(2);
    expect(socket!.settings.socket_mode_enabled).toBe(true);
    expect(http!.settings.socket_mode_enabled).toBe(false);
  });

  it.each([
    ['Socket Mode', 0],
    ['HTTP', 1],
  ])('%s lists every command the app answers, with /pw-status instead of Slack’s own /status', (_mode, i) => {
    const commands = manifests()[i]!.features.slash_commands.map((c) => c.command);
    expect([...commands].sort()).toEqual([...SLACK_COMMANDS].sort());
    expect(commands).not.toContain('/status');
  });

  it('the two list the same commands with the same words; only HTTP names URLs', () => {
    const words = (m: Manifest) => m.features.slash_commands.map(({ url: _url, ...rest }) => rest);
    expect(words(socket!)).toEqual(words(http!));
    expect(socket!.features.slash_commands.every((c) => c.url === undefined)).toBe(true);
    expect(http!.features.slash_commands.every((c) => c.url?.endsWith('/slack/commands'))).toBe(true);
    expect(http!.settings.event_subscriptions.request_url).toMatch(/\/slack\/events$/);
  });
});
