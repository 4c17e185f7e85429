import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FINAL_STATUSES, type Operation } from '@pullwright/core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type ContainerStack, compose, engineObjects } from './support/container-stack.ts';
import { dockerCommand } from './support/docker-command.ts';

const stack = inject('containerStack');
const ROOT = path.resolve(import.meta.dirname, '../..');

interface ContainerState {
  Id: string;
  RestartCount: number;
  State: { Status: string; StartedAt: string; ExitCode: number; Health?: { Status: string } };
  HostConfig: {
    Memory: number;
    PidsLimit: number;
    NanoCpus: number;
    SecurityOpt: string[];
    CapDrop: string[];
    MaskedPaths: string[];
    ReadonlyPaths: string[];
  };
}

async function inspect(ids: string[]): Promise<ContainerState[]> {
  return JSON.parse(await dockerCommand(['inspect', ...ids])) as ContainerState[];
}

/** The container ids of one compose service, stopped ones included. */
async function serviceContainers(s: ContainerStack, service: string): Promise<string[]> {
  return (await compose(s, ['ps', '--all', '--quiet', service])).split('\n').filter(Boolean);
}

/**
 * The memory cgroup's OOM kill count of a container, read on the host: the kernel's own record
 * that the container's limit, not the host's memory, stopped something in it.
 */
function oomKills(containerId: string): number {
  const candidates: Array<[string, RegExp]> = [
    [`/sys/fs/cgroup/memory/docker/${containerId}/memory.oom_control`, /^oom_kill (\d+)$/m],
    [`/sys/fs/cgroup/docker/${containerId}/memory.events`, /^oom_kill (\d+)$/m],
    [`/sys/fs/cgroup/system.slice/docker-${containerId}.scope/memory.events`, /^oom_kill (\d+)$/m],
  ];
  for (const [file, pattern] of candidates) {
    if (existsSync(file)) return Number(pattern.exec(readFileSync(file, 'utf8'))?.[1] ?? Number.NaN);
  }
  throw new Error(`no memory cgroup found for container ${containerId}`);
}

/**
 * The whole system as docker-compose.yml deploys it, on a real engine: images built from the
 * Dockerfiles, `secrets` → redis → api → two workers, the local forge in its volume. Requests
 * go to the API's published port only, as a user's would; `docker` itself is used to look
 * inside (the forge volume, Redis, the containers' state) and to kill a worker.
 */
describe.skipIf(!stack)('the compose stack on a real Docker engine', () => {
  const s = stack as ContainerStack;
  let token: string;

  const request = (method: string, url: string, body?: unknown) =>
    fetch(`${s.apiUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const operation = async (id: string) => (await (await request('GET', `/v1/operations/${id}`)).json()) as Operation;
  /** Until `done`, or the test's own timeout: an operation on two loaded cores takes what it takes. */
  const waitUntil = async (id: string, done: (op: Operation) => boolean) => {
    for (;;) {
      const op = await operation(id);
      if (done(op)) return op;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  const settled = (op: Operation) => op.status === 'awaiting_approval' || FINAL_STATUSES.has(op.status);
  const debug = async (repo: string) => {
    const res = await request('POST', '/v1/operations', { type: 'debug', repo, description: 'slugify keeps spaces' });
    expect(res.status).toBe(202);
    return ((await res.json()) as { id: string }).id;
  };
  /** Every check run's record (`NNN-test.txt`) of an operation, as the API serves them. */
  const checkRecords = async (id: string) => {
    const list = (await (await request('GET', `/v1/operations/${id}/artifacts`)).json()) as {
      artifacts: { name: string }[];
    };
    const names = list.artifacts.map((a) => a.name).filter((name) => /^\d+-test\.txt$/.test(name));
    return Promise.all(
      names.map(async (name) => (await request('GET', `/v1/operations/${id}/artifacts/${name}`)).text()),
    );
  };
  /** A worker's /metrics (WORKER_PORT inside its container: workers publish no port). */
  const workerMetric = async (containerId: string, name: string) => {
    const text = await dockerCommand([
      'exec',
      containerId,
      'node',
      '-e',
      "fetch('http://127.0.0.1:3001/metrics').then((r) => r.text()).then((t) => process.stdout.write(t))",
    ]);
    const samples = text.split('\n').filter((line) => line.startsWith(name) && /^[a-z_]+(\{[^}]*\})? /.test(line));
    return samples.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  };

  /** A /debug on `repo` to its end, and its check records (at least one). */
  const debugToEnd = async (repo: string) => {
    const op = await waitUntil(await debug(repo), settled);
    const records = await checkRecords(op.id);
    expect(records.length, op.error).toBeGreaterThan(0);
    return { op, records };
  };

  /**
   * A repository in the local forge volume, made the way an operator would: a commit of the
   * demo's sample repository (plus `files`) imported with `pullwright repo add` in the API's
   * container.
   */
  const addRepository = async (name: string, files: Record<string, string> = {}) => {
    const writes = Object.entries(files)
      .map(([file, text]) => `cat > '${file}' <<'PW_FILE_END'\n${text}\nPW_FILE_END`)
      .join('\n');
    const script = [
      'set -e',
      'work="$(mktemp -d)"',
      'cp -r /app/apps/cli/demo/sample-repo/. "$work"',
      'chmod -R u+w "$work"',
      'cd "$work"',
      writes,
      'git init -q -b main',
      'git add -A',
      'git -c user.name=pullwright-test -c user.email=test@pullwright.invalid commit -q -m "the sample"',
      `node /app/apps/cli/bin/pullwright.js repo add "$work" --name ${name}`,
    ].join('\n');
    await compose(s, ['exec', '-T', 'api', 'sh', '-s'], `${script}\n`);
    return name;
  };

  let workersAtStart: ContainerState[];

  beforeAll(async () => {
    token = (await compose(s, ['exec', '-T', 'api', 'cat', '/run/pullwright-api/api-token'])).trim();
    workersAtStart = await inspect(await serviceContainers(s, 'worker'));
  });

  it('boots secrets → redis → api → two workers, healthy, each worker sandboxing with bubblewrap', async () => {
    const [secrets] = await inspect(await serviceContainers(s, 'secrets'));
    expect(secrets?.State).toMatchObject({ Status: 'exited', ExitCode: 0 });
    for (const service of ['redis', 'api']) {
      const [container] = await inspect(await serviceContainers(s, service));
      expect(container?.State.Health?.Status, service).toBe('healthy');
    }
    expect(workersAtStart.map((w) => w.State.Health?.Status)).toEqual(['healthy', 'healthy']);
    for (const url of ['/healthz', '/readyz']) expect((await fetch(`${s.apiUrl}${url}`)).status, url).toBe(200);
    // SANDBOX=bubblewrap fails closed: a worker that could not sandbox would not have started.
    const logs = await compose(s, ['logs', '--no-color', 'worker']);
    expect(logs.match(/"runner":"bubblewrap"[^\n]*command sandbox ready/g)).toHaveLength(2);
  });

  it('runs the services as uid 1001 on a read-only /app, the worker under its limits and seccomp profile', async () => {
    for (const service of ['api', 'worker']) {
      const probe = await compose(s, [
        'exec',
        '-T',
        service,
        'sh',
        '-c',
        'id -u; touch /app/package.json /app/node_modules/probe /app/apps/cli/dist/main.js 2>&1 | wc -l',
      ]);
      // uid 1001, and each of the three writes refused.
      expect(probe.trim().split('\n'), service).toEqual(['1001', '3']);
    }
    for (const worker of workersAtStart) {
      expect(worker.HostConfig).toMatchObject({
        Memory: s.workerLimits.memoryBytes,
        PidsLimit: s.workerLimits.pids,
        NanoCpus: s.workerLimits.cpus * 1e9,
        CapDrop: ['ALL'],
      });
      // systempaths=unconfined: nothing of /proc masked or read-only, so bwrap can mount its own.
      expect(worker.HostConfig).toMatchObject({ MaskedPaths: [], ReadonlyPaths: [] });
      const [seccomp, ...others] = [...worker.HostConfig.SecurityOpt].sort((a, b) =>
        a.startsWith('seccomp=') ? -1 : b.startsWith('seccomp=') ? 1 : a.localeCompare(b),
      );
      expect(others).toEqual(['apparmor=unconfined', 'no-new-privileges:true']);
      expect(JSON.parse(seccomp!.slice('seccomp='.length))).toEqual(
        JSON.parse(readFileSync(path.join(ROOT, 'docker/seccomp-bwrap.json'), 'utf8')),
      );
    }
  });

  it('takes a /debug from the REST API to a PR, serves its transcript, verification and artifacts, and merges it on the forge volume', async () => {
    const repo = await addRepository('compose/slugify');
    const id = await debug(repo);
    const op = await waitUntil(id, settled);
    expect(op.status, op.error).toBe('awaiting_approval');
    expect(op.pullRequest?.number).toBe(1);

    // Written by a worker, served by the API from Redis.
    const transcript = await request('GET', `/v1/operations/${id}/transcript`);
    expect(transcript.status).toBe(200);
    const kinds = (await transcript.text())
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { kind: string }).kind);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('tool');
    const verification = await request('GET', `/v1/operations/${id}/verification`);
    expect(await verification.json()).toMatchObject({
      valid: true,
      block: { operation: id, headSha: op.pullRequest!.headSha },
    });
    const records = await checkRecords(id);
    expect(records.at(-1)).toMatch(/^check: test\n[\s\S]*exit code: 0\n[\s\S]*result: passed/);

    const approve = await request('POST', `/v1/operations/${id}/approve`, { headSha: op.pullRequest!.headSha });
    expect(approve.status).toBe(200);
    const merged = await waitUntil(id, (o) => FINAL_STATUSES.has(o.status));
    expect(merged.status, merged.error).toBe('merged');
    // The merge is in the bare repository on the forge volume, as every service sees it.
    const fixed = await compose(s, [
      'exec',
      '-T',
      'api',
      'git',
      '--git-dir=/srv/forge/compose/slugify.git',
      'show',
      'main:src/slugify.js',
    ]);
    expect(fixed).toContain("split(/\\s+/).join('-')");
  });

  it('a memory hog in a check is killed inside the worker’s limit; the worker lives on', async () => {
    const oomBefore = workersAtStart.map((w) => oomKills(w.Id));
    const repo = await addRepository('compose/memory-hog', {
      '.pullwright.yml': 'checks:\n  test: { command: node hog.js, timeout_ms: 120000 }',
      // Three processes, each under the sandbox's per-process ceiling, together over the worker's.
      'hog.js': [
        "import { fork } from 'node:child_process';",
        "if (process.argv[2] === 'hog') {",
        '  const held = [];',
        '  for (;;) held.push(Buffer.alloc(16 << 20, 1));',
        '} else {',
        '  for (let i = 0; i < 3; i++) {',
        "    fork(new URL(import.meta.url).pathname, ['hog']).on('exit', (code, signal) => {",
        "      console.log('hog', i, 'ended:', signal ?? 'exit ' + code);",
        '      process.exitCode = 1;',
        '    });',
        '  }',
        '}',
      ].join('\n'),
    });
    const { op, records } = await debugToEnd(repo);
    for (const record of records) {
      expect(record).toMatch(/result: failed/);
      expect(record).toMatch(/hog \d ended: SIGKILL/);
    }
    // The kernel's OOM killer acted inside a worker's cgroup, and chose the check's processes.
    const oomAfter = workersAtStart.map((w) => oomKills(w.Id));
    expect(oomAfter.reduce((a, b) => a + b) - oomBefore.reduce((a, b) => a + b)).toBeGreaterThan(0);
    const workers = await inspect(workersAtStart.map((w) => w.Id));
    expect(workers.map((w) => [w.State.Status, w.State.StartedAt, w.RestartCount])).toEqual(
      workersAtStart.map((w) => ['running', w.State.StartedAt, 0]),
    );
    expect(op.status === 'failed' ? op.error : op.status).toBeTruthy();
  });

  it('a fork bomb in a check stops at the sandbox’s process limit and leaves nothing behind', async () => {
    const repo = await addRepository('compose/fork-bomb', {
      '.pullwright.yml': 'checks:\n  test: { command: sh bomb.sh, timeout_ms: 120000 }',
      'bomb.sh': [
        'i=0',
        'while [ "$i" -lt 5000 ]; do',
        '  sleep 300 &',
        '  i=$((i + 1))',
        '  [ $((i % 50)) -eq 0 ] && echo "spawned $i"',
        'done',
        'echo "spawned all $i"',
      ].join('\n'),
    });
    const { records } = await debugToEnd(repo);
    for (const record of records) {
      expect(record).toMatch(/Cannot fork|Resource temporarily unavailable/);
      expect(record).not.toContain('spawned all');
      const counts = [...record.matchAll(/^spawned (\d+)$/gm)].map((m) => Number(m[1]));
      // 256 processes per sandbox (its RLIMIT_NPROC), far below the worker's 1024 pids.
      expect(Math.max(0, ...counts)).toBeLessThanOrEqual(256);
    }
    for (const worker of await inspect(workersAtStart.map((w) => w.Id))) {
      expect(worker.State.Status).toBe('running');
      expect(await dockerCommand(['top', worker.Id])).not.toContain('sleep 300');
    }
  });

  it('finishes the job of a worker container killed mid-job on the other worker, with one pull request', async () => {
    // Checks that take seconds: the job is still running when its worker is found and killed.
    const repo = await addRepository('compose/killed', {
      '.pullwright.yml': 'checks:\n  test: sleep 5 && node --test',
    });
    const finished = 'pullwright_worker_jobs_finished_total';
    const finishedBefore = await Promise.all(workersAtStart.map((w) => workerMetric(w.Id, finished)));
    const id = await debug(repo);
    let holder: number;
    for (;;) {
      const running = await Promise.all(
        workersAtStart.map((w) => workerMetric(w.Id, 'pullwright_worker_jobs_running')),
      );
      holder = running.findIndex((jobs) => jobs > 0);
      if (holder >= 0) break;
    }
    const killed = workersAtStart[holder]!;
    const survivor = workersAtStart[1 - holder]!;
    await dockerCommand(['kill', '--signal', 'KILL', killed.Id]);

    const op = await waitUntil(id, settled);
    expect(op.status, op.error).toBe('awaiting_approval');
    // The survivor finished it (the killed worker never did), once.
    await expect
      .poll(() => workerMetric(survivor.Id, finished), { timeout: 60_000 })
      .toBe(finishedBefore[1 - holder]! + 1);
    expect(op.pullRequest?.number).toBe(1);
    expect((await request('GET', `/forge/${repo}/pulls/1`)).status).toBe(200);
    expect((await request('GET', `/forge/${repo}/pulls/2`)).status).toBe(404);
    const [dead] = await inspect([killed.Id]);
    expect(dead?.State).toMatchObject({ Status: 'exited', ExitCode: 137 });
  });

  it('tears down to nothing: no container, network or volume of the stack is left', async () => {
    await compose(s, ['down', '--volumes', '--remove-orphans']);
    expect(await engineObjects()).toEqual(s.before);
    const labelled = await dockerCommand([
      'ps',
      '--all',
      '--quiet',
      '--filter',
      `label=com.docker.compose.project=${s.project}`,
    ]);
    expect(labelled.trim()).toBe('');
  });
});
