import { describe, expect, it } from 'vitest';
import { describeEvent, withDescription } from './describe-event.ts';
import {
  checkEventData,
  OperationEventType as EventTypes,
  type OperationEvent,
  type OperationEventDataOf,
  type OperationEventType,
} from './operation-event.ts';

const sha = (c: string) => c.repeat(40);

/** One event of every type: the map names every type, so a new type does not compile until it has a sample here. */
const SAMPLES: { [T in OperationEventType]: OperationEventDataOf<T> } = {
  created: { status: 'queued', type: 'fix', repo: 'acme/api', requester: { source: 'api', user: 'alice' } },
  status: { to: 'failed', reason: 'the checks failed\nmore detail', by: 'worker' },
  step: { step: 'verify', state: 'finished', job: 'run', durationMs: 12, passed: false, files: ['a.ts'] },
  phase: { phase: 'repair', round: 2, failing: ['test'], taskId: 'T1' },
  model: { role: 'coder', turn: 3, text: 'Looking at the parser\nand more', toolCalls: ['read_file'] },
  tool: { role: 'coder', name: 'read_file', input: { path: 'a.ts' }, isError: false, summary: 'a.ts (20 lines)' },
  check: { name: 'test', passed: false, exitCode: 1, durationMs: 812, failingTests: ['splits'] },
  message: { from: 'alice', source: 'dashboard', text: 'look at b.ts' },
  waiting: { holder: 'op2', files: ['a.ts'] },
  locks_acquired: { files: ['a.ts'], waited: true },
  checkpoint: { step: 'agent_result', outcome: 'ready' },
  evidence: { reproduced: true, red: ['splits', 'trims'], green: ['splits', 'trims', 'other'] },
  overlap: { branches: ['agent/op2'], files: ['a.ts'] },
  risk: { level: 'high', reasons: ['touches auth'] },
  approval: { by: 'bob', identity: 'bob', source: 'slack', role: 'approver', headSha: sha('a') },
  approval_pending: { missing: ['1 more from owners'], approvals: 1 },
  auto_approval: { approved: false, reasons: ['risk is high'] },
  cancel_requested: { by: 'alice' },
  usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0123 },
  plan_confirmation: { state: 'modified', by: 'alice', note: 'keep the API\nplease' },
  deploy: { step: 'started', target: 'webhook', by: 'dee' },
  budget_estimate: { estimateUsd: 0.42, basis: 'history', samples: 3, limitUsd: 2 },
  budget_pause: { state: 'pending', spentUsd: 1.6, limitUsd: 2, percent: 80, timeoutMs: 3_600_000 },
  commit_signature: { state: 'unsigned', reason: 'the forge has no git-data API', headSha: 'c'.repeat(40) },
  plan_step: { planId: 'plan_0001', taskId: 'T2', title: 'Wire it in', state: 'failed', checks: [] },
  fix_report: {
    round: 1,
    valid: true,
    report: {
      status: 'fixed',
      fixes_applied: [{ file: 'a.ts', line: 3, error_type: 'TypeError', description: 'null check' }],
      build_status: 'pass',
      remaining_errors: [],
      attempts: 1,
    },
  },
  ci_failure: { state: 'needs_human', headSha: 'abcdef1234567', checks: ['test'], attempts: 2 },
  sandbox: { runner: 'none', sandboxed: false, warning: 'SANDBOX=none' },
  instructions: { files: [{ path: 'AGENTS.md', kind: 'agents', tokens: 120 }], skipped: [{ path: 'big.md' }] },
  mcp: { server: 'docs', state: 'failed', required: false, reason: 'exited with 1' },
  base_merged: { baseSha: sha('b'), headSha: sha('c'), checks: [{ name: 'test', exitCode: 0, durationMs: 10 }] },
  head_moved: { headSha: sha('d'), by: 'carol' },
  revision: { state: 'pushed', requestId: 'r1', headSha: sha('e'), changed: true, replies: [] },
  retry_of: { opId: 'op0', by: 'alice' },
  retried: { retryId: 'op9', by: 'alice' },
  slack_session: { channel: 'C1', user: 'U1', auto: false },
  slack_thread: { channel: 'C1', ts: '1.2' },
  egress_refused: { host: 'evil.example', port: 443, reason: 'not_allowed', step: 'install' },
  stuck: { step: 'agent', idleMs: 120_000, since: '2026-01-01T00:00:00.000Z' },
  unstuck: { afterMs: 130_000 },
};

const event = (type: string, data: object): OperationEvent => ({
  id: '1-0',
  ts: '2026-01-01T00:00:00.000Z',
  opId: 'op1',
  type: type as OperationEvent['type'],
  data: data as Record<string, unknown>,
});

describe('describeEvent', () => {
  it.each(EventTypes.options)('gives %s a line of words, from data that fits its schema', (type) => {
    const data = SAMPLES[type];
    expect(() => checkEventData(type, data)).not.toThrow();
    const { text } = describeEvent(event(type, data));
    expect(text).not.toBe(type);
    expect(text).not.toMatch(/[{}]|undefined|\n/);
  });

  it.each([
    ['evidence', SAMPLES.evidence, { text: 'Reproduced: 2 tests failing before, passing after', tone: 'good' }],
    [
      'evidence',
      { reproduced: false, red: [], green: [], note: 'no test failed' },
      { text: 'Not reproduced by a failing test (no test failed)', tone: 'info' },
    ],
    [
      'ci_failure',
      {
        headSha: 'abcdef1234567',
        checks: ['test'],
        state: 'revision_queued',
        attempt: 1,
        of: 2,
        runUrl: 'https://ci.example/runs/9',
      },
      { text: 'CI red on abcdef1 (test): revision 1 of 2', tone: 'info', link: 'https://ci.example/runs/9' },
    ],
    [
      'ci_failure',
      SAMPLES.ci_failure,
      { text: 'CI red on abcdef1 (test) after 2 automatic revisions: needs a person', tone: 'bad' },
    ],
    [
      'ci_failure',
      { headSha: 'abcdef1234567', state: 'pre_existing', preExisting: ['lint'], runUrl: 'javascript:alert(1)' },
      { text: 'CI red on abcdef1 only where the base is red too (lint): no revision', tone: 'info' },
    ],
    ['status', SAMPLES.status, { text: 'Failed by worker: the checks failed', tone: 'bad' }],
    ['status', { to: 'merged', mergeSha: sha('f') }, { text: 'Merged as fffffff', tone: 'good' }],
    ['retried', SAMPLES.retried, { text: 'Retried by alice as op9', tone: 'info', link: '#/op/op9' }],
    [
      'step',
      { step: 'update_from_base', state: 'started' },
      { text: 'Bringing the branch up to date with its base', tone: 'step' },
    ],
    ['step', { step: 'some_step', state: 'finished' }, { text: 'Some step done', tone: 'step' }],
    [
      'model',
      { role: 'reviewer', turn: 2, text: '{"decision":"request_changes","must_fix":["handle tabs"]}', toolCalls: [] },
      { text: 'Reviewer · turn 2: asked for changes: handle tabs', tone: 'model' },
    ],
    [
      'model',
      { role: 'planner', turn: 1, text: '{"summary":"Split on whitespace","steps":[{"title":"fix"', toolCalls: [] },
      { text: 'Planner · turn 1: proposed a plan: Split on whitespace', tone: 'model' },
    ],
  ] as const)('%s %j reads %j', (type, data, expected) => {
    expect(describeEvent(event(type, data))).toEqual(expected);
  });

  it('reads a type this build does not know, and data in an older shape, by the type name', () => {
    expect(describeEvent(event('from_a_newer_worker', { x: 1 }))).toEqual({
      text: 'from_a_newer_worker',
      tone: 'info',
    });
    expect(describeEvent(event('check', { name: 'test' }))).toEqual({ text: 'check', tone: 'info' });
  });

  it('attaches the line to the event the API sends', () => {
    const e = event('cancel_requested', SAMPLES.cancel_requested);
    expect(withDescription(e)).toEqual({ ...e, description: { text: 'Cancel requested by alice', tone: 'bad' } });
  });
});
