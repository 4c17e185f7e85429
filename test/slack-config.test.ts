import { type ConfigError, loadConfig } from '@pullwright/core';
import { describe, expect, it } from 'vitest';

describe('Slack configuration', () => {
  it('reads the channel → repository map, the approvers and the public URL', () => {
    const config = loadConfig({
      SLACK_CHANNEL_REPOS: ' C0123ABCD=acme/api, C0456EFGH=acme/web.js ,',
      SLACK_APPROVERS: 'U012AB3CD, W045EF6GH',
      PUBLIC_URL: 'https://pw.example.com/',
    });
    expect(config.slack.channelRepos).toEqual({ C0123ABCD: 'acme/api', C0456EFGH: 'acme/web.js' });
    expect(config.slack.approvers).toEqual(['U012AB3CD', 'W045EF6GH']);
    expect(config.publicUrl).toBe('https://pw.example.com');
  });

  it('defaults: nobody approves from Slack, no channel map, the dashboard on HOST:PORT', () => {
    const config = loadConfig({ PORT: '8080' });
    expect(config.slack).toMatchObject({ channelRepos: {}, approvers: [] });
    expect(config.publicUrl).toBe('http://127.0.0.1:8080');
  });

  it('names every bad pair and id at once', () => {
    try {
      loadConfig({
        SLACK_CHANNEL_REPOS: 'C0123ABCD=../etc,general=acme/api,C0456EFGH',
        SLACK_APPROVERS: 'dana,U012AB3CD',
      });
      expect.unreachable();
    } catch (err) {
      const issues = (err as ConfigError).context.issues;
      expect(issues.map((i) => i.variable).sort()).toEqual([
        'SLACK_APPROVERS',
        'SLACK_CHANNEL_REPOS',
        'SLACK_CHANNEL_REPOS',
        'SLACK_CHANNEL_REPOS',
      ]);
      const reasons = issues.map((i) => i.reason).join('\n');
      expect(reasons).toContain('"general=acme/api" must be CHANNEL_ID=owner/name');
      expect(reasons).toContain('"dana" is not a Slack user id');
    }
  });
});
