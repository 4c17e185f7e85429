import { readFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type { Operation, OperationEvent } from '@pullwright/core';
import { eventually } from '@pullwright/testing/eventually';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/free-port.ts';
import { ScriptedModel, type Turn, text, tool } from './support/scripted-model.ts';
import { startTestSystem, type TestSystem } from './support/test-runtime.ts';
import { waitForStatus } from './support/wait-for-status.ts';

/**
 * Issue 27: the install step runs the repository's package scripts, and in a revision those
 * come from the PR head, which the model wrote. A `postinstall` script (real npm, in real
 * bubblewrap) tries the service's Redis and API ports, the cloud metadata address, a private
 * address and loopback — all named in the repository's `network.allow` — and a fake registry
 * the deployment allows (NETWORK_ALLOW=localhost): only the registry answers, and each refusal
 * is an event on the operation. The script reports what it saw to the registry, through the proxy.
 */

const PROBE = readFileSync(
  path.resolve(import.meta.dirname, '../packages/sandbox/src/testing/egress-probe.cjs'),
  'utf8',
);

const PLAN = (files: string[]) =>
  text(JSON.stringify({ summary: 'Change the answer', steps: [{ title: 'Edit', files, acceptance: 'tests pass' }] }));
const ACCEPT = text(JSON.stringify({ decision: 'accept', reasons: ['small and tested'] }));
const EDIT = tool('edit_file', { path: 'src/app.js', oldText: 'answer = 41', newText: 'answer = 42' });

let sys: TestSystem;
let registry: http.Server;
let registryPort: number;
let apiPort: number;
let redisPort: number;
/** What each postinstall run reported to the registry, in order. */
const reports: string[] = [];
let seq = 0;
const scripts = new Map<string, Turn[][]>();

beforeAll(async () => {
  registry = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.url === '/report') reports.push(body);
      res.end(req.url === '/left-pad' ? 'left-pad 1.3.0' : 'ok');
    });
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  registryPort = (registry.address() as net.AddressInfo).port;
  apiPort = await freePort();
  sys = await startTestSystem({
    env: { PORT: String(apiPort), NETWORK_ALLOW: 'localhost', MAX_REPAIRS: '0', MAX_TURNS: '40' },
  });
  redisPort = Number(new URL(sys.runtime.config.redisUrl ?? 'redis://x:6379').port);
  sys.runtime.createProvider = (op) => new ScriptedModel(scripts.get(op.repo)?.shift() ?? []);
}, 60_000);

afterAll(async () => {
  await sys?.stop();
  await new Promise((resolve) => registry?.close(resolve));
});

/** The probe's targets: every one but the registry must be refused. */
const targets = () =>
  [
    `connect:localhost:${redisPort}`,
    `connect:127.0.0.1:${apiPort}`,
    `connect:127.0.0.1:${registryPort}`,
    'connect:169.254.169.254:80',
    'connect:10.1.2.3:443',
    `direct:127.0.0.1:${redisPort}`,
    `get:http://localhost:${registryPort}/left-pad`,
    `report:http://localhost:${registryPort}/report`,
  ].join(' ');

/** What the probe must have seen, line by line. */
const expectedReport = () =>
  [
    `connect localhost:${redisPort} 403`,
    `connect 127.0.0.1:${apiPort} 403`,
    `connect 127.0.0.1:${registryPort} 403`,
    'connect 169.254.169.254:80 403',
    'connect 10.1.2.3:443 403',
    `direct 127.0.0.1:${redisPort} ECONNREFUSED`,
    `get http://localhost:${registryPort}/left-pad 200 left-pad 1.3.0`,
  ].join('\n');

/** The refusals the operation must record for one run of the probe in `step`. */
const expectedRefusals = (step: string) => [
  { host: 'localhost', port: redisPort, reason: 'service_port', step },
  { host: '127.0.0.1', port: apiPort, reason: 'service_port', step },
  { host: '127.0.0.1', port: registryPort, reason: 'loopback', address: '127.0.0.1', step },
  { host: '169.254.169.254', port: 80, reason: 'link_local', address: '169.254.169.254', step },
  { host: '10.1.2.3', port: 443, reason: 'private', address: '10.1.2.3', step },
];

const PACKAGE = (scripts: Record<string, string>) =>
  `${JSON.stringify({ name: 'egress', version: '1.0.0', type: 'module', scripts }, null, 2)}\n`;

/** A repository whose install is npm's (package scripts run), with the probe beside it. */
async function createRepo(postinstallOnBase: boolean): Promise<string> {
  const repo = `acme/egress${++seq}`;
  await sys.runtime.localForge!.createRepository(repo, {
    '.gitignore': 'node_modules/\n',
    '.pullwright.yml': [
      'install: npm install --no-audit --no-fund --no-package-lock',
      'checks: { test: "node test.js" }',
      // What a hostile repository could write: it opens names, never the addresses behind them.
      'network: { allow: ["127.0.0.1", "169.254.169.254", "10.1.2.3"] }',
    ].join('\n'),
    'package.json': PACKAGE(
      postinstallOnBase
        ? { test: 'node test.js', postinstall: `node egress-probe.cjs ${targets()}` }
        : { test: 'node test.js' },
    ),
    'egress-probe.cjs': PROBE,
    'src/app.js': 'export const answer = 41;\n',
    'test.js': "import { answer } from './src/app.js';\nif (typeof answer !== 'number') process.exit(1);\n",
  });
  return repo;
}

/** Requests an implement operation on `repo`, as a person would over REST. */
async function requestOperation(repo: string): Promise<string> {
  const res = await sys.request('POST', '/v1/operations', { type: 'implement', repo, description: 'Bump it' });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

const refusalsIn = (events: OperationEvent[], step: string) =>
  events.filter((e) => e.type === 'egress_refused' && e.data.step === step).map((e) => e.data);

describe('the install step reaches only its allowlist, through the egress proxy', () => {
  it('from a run: the postinstall on the base reaches the registry alone, and every refusal is recorded', async () => {
    const repo = await createRepo(true);
    scripts.set(repo, [[PLAN(['src/app.js']), EDIT, text('Edited.'), ACCEPT]]);
    const id = await requestOperation(repo);
    const op = await waitForStatus(sys, id, ['awaiting_approval', 'failed'], 180_000);
    expect(op.error).toBeUndefined();
    // The install step and the baseline's install of the base both ran the script.
    expect(reports).toEqual([expectedReport(), expectedReport()]);
    const events = await sys.runtime.events.list(id);
    expect(refusalsIn(events, 'install')).toEqual(expectedRefusals('install'));
    expect(refusalsIn(events, 'baseline')).toEqual(expectedRefusals('baseline'));
  }, 240_000);

  it('from a revision whose PR head added the postinstall: the same', async () => {
    reports.length = 0;
    const repo = await createRepo(false);
    const addScript = tool('edit_file', {
      path: 'package.json',
      oldText: '"test": "node test.js"',
      newText: `"test": "node test.js",\n    "postinstall": "node egress-probe.cjs ${targets()}"`,
    });
    const again = tool('edit_file', { path: 'src/app.js', oldText: 'answer = 42', newText: 'answer = 43' });
    scripts.set(repo, [
      [PLAN(['src/app.js', 'package.json']), EDIT, addScript, text('Edited.'), ACCEPT],
      [again, text('Done.\n{"replies":[{"comment":"C1","outcome":"fixed","note":"Bumped."}]}')],
    ]);
    const id = await requestOperation(repo);
    const opened = await waitForStatus(sys, id, ['awaiting_approval', 'failed'], 180_000);
    expect(opened.error).toBeUndefined();
    // The run installed the base, before the model's change: nothing ran, nothing was refused.
    expect(reports).toEqual([]);
    expect(refusalsIn(await sys.runtime.events.list(id), 'install')).toEqual([]);

    await sys.runtime.actions.revise(
      id,
      { user: 'maria', source: 'github' },
      { requestId: `review-${id}`, feedback: [{ id: 7, kind: 'review', user: 'maria', body: 'Bump it once more.' }] },
    );
    const revised = await eventually(
      () => `the revision of ${id} hands the PR back`,
      async () => {
        const events = await sys.runtime.events.list(id);
        const back = events.some(
          (e) => e.type === 'status' && e.data.revision !== undefined && e.data.to === 'awaiting_approval',
        );
        const op: Operation = await sys.runtime.store.get(id);
        return back && op.status === 'awaiting_approval' ? events : undefined;
      },
      { timeoutMs: 180_000 },
    );
    expect(reports[0]).toBe(expectedReport());
    expect(refusalsIn(revised, 'install')).toEqual(expectedRefusals('install'));
  }, 360_000);
});
