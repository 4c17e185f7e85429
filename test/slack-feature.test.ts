import type { FeatureRequest } from '@pullwright/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, REQUESTER, type SlackSystem, startSlackSystem } from './support/fake-slack-system.ts';
import { createSampleRepo } from './support/sample-repo.ts';
import { ScriptedModel, text } from './support/scripted-model.ts';
import { waitForFeatureRequest } from './support/wait-for-feature-request.ts';

/** Slack `/feature` captures a feature request whose analysis a worker runs (issue 21 item 5). */

const ANALYSIS = {
  intent: 'Slugs should keep digits.',
  affectedModules: ['src/slugify.js'],
  priority: 'medium',
  acceptanceCriteria: ['slugify("a 1") is "a-1"'],
};

let s: SlackSystem;
beforeAll(async () => {
  s = await startSlackSystem();
  await createSampleRepo(s.sys.runtime.localForge!);
  s.sys.runtime.createProvider = () => new ScriptedModel([text(JSON.stringify(ANALYSIS))]);
});
afterAll(async () => s?.stop());

const analysed = (id: string): Promise<FeatureRequest> =>
  waitForFeatureRequest(s.sys, id, (request) => request.status !== 'new');

describe('Slack /feature', () => {
  it('captures the request for the Slack user and answers with where to triage it', async () => {
    const answer = await s.command({
      command: '/feature',
      text: 'acme/slugify Keep digits in slugs &amp; say so --base main',
      user_id: REQUESTER,
      channel_id: CHANNEL,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.response_type).toBe('ephemeral');
    const id = /`(fr[a-z0-9]+)`/.exec(JSON.stringify(answer.body))?.[1];
    expect(id).toBeDefined();
    expect(JSON.stringify(answer.body)).toContain(`#/features/${id}`);
    const request = await analysed(id!);
    expect(request).toMatchObject({
      status: 'analyzed',
      repo: 'acme/slugify',
      baseBranch: 'main',
      description: 'Keep digits in slugs & say so',
      requester: { source: 'slack', user: REQUESTER, channel: CHANNEL },
      acceptanceCriteria: ANALYSIS.acceptanceCriteria,
    });
  });

  it('a redelivered command (same trigger_id) captures one request', async () => {
    const fields = {
      command: '/feature',
      text: 'acme/slugify Trim slugs',
      trigger_id: '13345224609.738474920.feature01',
    };
    const answers = await Promise.all([s.command(fields), s.command(fields)]);
    const ids = answers.map((a) => /`(fr[a-z0-9]+)`/.exec(JSON.stringify(a.body))?.[1]);
    expect(ids[0]).toBeDefined();
    expect(ids[1]).toBe(ids[0]);
    const captured = (await s.sys.runtime.features.list()).filter((r) => r.description === 'Trim slugs');
    expect(captured.map((r) => r.id)).toEqual([ids[0]]);
  });

  it('answers usage for an empty request and refuses an unknown repository', async () => {
    const empty = await s.command({ command: '/feature', text: '  ' });
    expect(JSON.stringify(empty.body)).toContain('describe the feature you would like');
    const unknown = await s.command({ command: '/feature', text: 'acme/nope add a thing' });
    expect(JSON.stringify(unknown.body)).toContain('repository acme/nope is not available');
    expect((await s.sys.runtime.features.list()).map((r) => r.repo)).not.toContain('acme/nope');
  });
});
