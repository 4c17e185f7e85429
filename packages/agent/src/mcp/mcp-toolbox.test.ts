import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { McpServer as SdkServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServer } from '@pullwright/policy';
import { BubblewrapRunner } from '@pullwright/sandbox';
import { PathGuard, Redactor } from '@pullwright/security';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext } from '../tools/define-tool.ts';
import type { McpCallRecord } from './mcp-agent-tool.ts';
import { type McpServerEvent, McpServerUnavailableError, McpToolbox } from './mcp-toolbox.ts';

const FIXTURE = path.join(import.meta.dirname, 'testing', 'fixture-mcp-server.mjs');
const TOKEN = 'mcp-credential-0123456789abcdef';
const none = { planner: [], coder: [], fixer: [], reviewer: [] };

const stdio = (name: string, command: string, extra: Partial<McpServer> = {}): McpServer => ({
  name,
  origin: 'repository',
  transport: { kind: 'stdio', command },
  roles: { ...none, planner: ['lookup'], coder: ['*'] },
  required: false,
  timeoutMs: 20_000,
  ...extra,
});

describe('McpToolbox', () => {
  const runner = new BubblewrapRunner();
  let worktree: string;
  let outside: string;
  let http: Server;
  let httpUrl: string;
  const received: string[] = [];

  beforeAll(async () => {
    worktree = mkdtempSync(path.join(os.tmpdir(), 'pw-mcp-worktree-'));
    execFileSync('git', ['init', '-q', worktree]);
    mkdirSync(path.join(worktree, 'tools'));
    copyFileSync(FIXTURE, path.join(worktree, 'tools', 'mcp.mjs'));
    outside = mkdtempSync(path.join(os.tmpdir(), 'pw-mcp-outside-'));
    // An HTTP server that wants the credential and echoes what it got (the output must mask it).
    http = createServer(async (req, res) => {
      received.push(req.headers.authorization ?? '');
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        res.writeHead(401).end();
        return;
      }
      const server = new SdkServer({ name: 'remote', version: '1.0.0' });
      server.registerTool('whoami', { inputSchema: { verbose: z.boolean().optional() } }, async () => ({
        content: [{ type: 'text', text: `you sent ${req.headers.authorization}` }],
      }));
      // Stateless: no session id generator, a server per request.
      const transport = new StreamableHTTPServerTransport({});
      res.on('close', () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    httpUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    rmSync(worktree, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const context = (): ToolContext => ({
    root: worktree,
    guard: new PathGuard(worktree),
    checks: { names: () => [], run: () => Promise.reject(new Error('no checks')) },
  });

  async function open(servers: McpServer[], events: McpServerEvent[] = [], calls: McpCallRecord[] = []) {
    return McpToolbox.open({
      servers,
      startCommand: (command) => runner.start({ command, cwd: worktree, timeoutMs: 120_000, readOnlyRoot: true }),
      env: { MCP_REMOTE_TOKEN: TOKEN },
      redactor: new Redactor(),
      root: worktree,
      onServer: async (e) => void events.push(e),
      onCall: async (c) => void calls.push(c),
    });
  }

  it('offers a sandboxed stdio server’s tools per role; a read answers, a write outside the worktree cannot happen', async () => {
    const events: McpServerEvent[] = [];
    const calls: McpCallRecord[] = [];
    const toolbox = await open([stdio('fixture', 'node tools/mcp.mjs')], events, calls);
    try {
      expect(events).toEqual([{ server: 'fixture', state: 'ready', tools: ['lookup', 'write_outside'] }]);
      expect(toolbox.toolsFor('planner').map((t) => t.name)).toEqual(['mcp__fixture__lookup']);
      const coder = toolbox.toolsFor('coder');
      expect(coder.map((t) => t.name)).toEqual(['mcp__fixture__lookup', 'mcp__fixture__write_outside']);
      expect(coder[0]!.spec.description).toBe('[MCP server fixture] Looks up the team convention for a topic.');
      expect(toolbox.toolsFor('reviewer')).toEqual([]);

      const read = await coder[0]!.execute({ topic: 'logging' }, context());
      expect(read).toEqual({
        content: 'Convention for logging: use the team logger. Files here: .git, tools',
        isError: false,
      });
      const target = path.join(outside, 'escaped.txt');
      const write = await coder[1]!.execute({ path: target }, context());
      expect(write.content).toBe(
        `could not write ${target}: ENOENT\ncould not write ${path.join(worktree, 'escaped.txt')}: EROFS`,
      );
      expect(existsSync(target)).toBe(false);
      expect(existsSync(path.join(worktree, 'escaped.txt'))).toBe(false);
      expect(calls.map((c) => [c.server, c.tool, c.isError])).toEqual([
        ['fixture', 'lookup', false],
        ['fixture', 'write_outside', false],
      ]);
      expect(await coder[0]!.execute('not an object', context())).toEqual({
        content: 'Invalid input for mcp__fixture__lookup: the arguments must be a JSON object.',
        isError: true,
      });
    } finally {
      await toolbox.close();
    }
    // Closed: a late call is an error the model reads, not a crash.
    const late = await toolbox.toolsFor('coder')[0]!.execute({ topic: 'x' }, context());
    expect(late).toEqual({
      content:
        'mcp__fixture__lookup is unavailable: the MCP server fixture is not running (closed). Carry on without it.',
      isError: true,
    });
  });

  it('reports a server that crashes at start with its own words, and goes on without it unless it is required', async () => {
    const events: McpServerEvent[] = [];
    const toolbox = await open(
      [stdio('broken', 'node tools/mcp.mjs --crash'), stdio('fixture', 'node tools/mcp.mjs')],
      events,
    );
    try {
      expect(events[0]).toEqual({
        server: 'broken',
        state: 'failed',
        required: false,
        reason: 'it exited with 2: fatal: cannot read the server configuration',
      });
      expect(events[1]).toMatchObject({ server: 'fixture', state: 'ready' });
      expect(toolbox.toolsFor('coder').map((t) => t.name)).toEqual([
        'mcp__fixture__lookup',
        'mcp__fixture__write_outside',
      ]);
    } finally {
      await toolbox.close();
    }
    await expect(open([stdio('broken', 'node tools/mcp.mjs --crash', { required: true })])).rejects.toThrow(
      new McpServerUnavailableError('broken', 'it exited with 2: fatal: cannot read the server configuration'),
    );
  });

  it('answers every call after a server died mid-run with why, and reports its exit once', async () => {
    const events: McpServerEvent[] = [];
    const toolbox = await open([stdio('fixture', 'node tools/mcp.mjs')], events);
    try {
      const [lookup] = toolbox.toolsFor('coder');
      const died = await lookup!.execute({ topic: 'exit' }, context());
      expect(died.isError).toBe(true);
      expect(died.content).toMatch(/^mcp__fixture__lookup failed: /);
      await expect.poll(() => events.length, { timeout: 10_000 }).toBe(2);
      expect(events[1]).toEqual({
        server: 'fixture',
        state: 'exited',
        reason: 'it exited with 3: fatal: lost the index',
      });
      expect(await lookup!.execute({ topic: 'logging' }, context())).toEqual({
        content:
          'mcp__fixture__lookup is unavailable: the MCP server fixture is not running (it exited with 3: fatal: lost the index). Carry on without it.',
        isError: true,
      });
    } finally {
      await toolbox.close();
    }
  });

  it('refuses stdio servers where the sandbox cannot start them', async () => {
    const events: McpServerEvent[] = [];
    const toolbox = await McpToolbox.open({
      servers: [stdio('fixture', 'node tools/mcp.mjs')],
      env: {},
      redactor: new Redactor(),
      root: worktree,
      onServer: async (e) => void events.push(e),
    });
    expect(toolbox.toolsFor('coder')).toEqual([]);
    expect(events).toEqual([
      {
        server: 'fixture',
        state: 'failed',
        required: false,
        reason:
          "stdio MCP servers run only in a sandbox that keeps them from writing the worktree (SANDBOX=bubblewrap); this worker's sandbox cannot start them",
      },
    ]);
  });

  it('reaches an HTTP server with the credential from the environment, and masks it in what the model reads', async () => {
    const remote: McpServer = {
      name: 'remote',
      origin: 'service',
      transport: { kind: 'http', url: httpUrl, credentialEnv: 'MCP_REMOTE_TOKEN' },
      roles: { ...none, fixer: ['whoami'] },
      required: true,
      timeoutMs: 20_000,
    };
    const toolbox = await open([remote]);
    try {
      const [whoami] = toolbox.toolsFor('fixer');
      const result = await whoami!.execute({}, context());
      expect(result.isError).toBe(false);
      expect(result.content).toMatch(/^you sent Bearer \[redacted…ef\]$/);
      expect(received.every((h) => h === `Bearer ${TOKEN}`)).toBe(true);
    } finally {
      await toolbox.close();
    }
    const events: McpServerEvent[] = [];
    const unset = await McpToolbox.open({
      servers: [{ ...remote, required: false }],
      env: {},
      redactor: new Redactor(),
      root: worktree,
      onServer: async (e) => void events.push(e),
    });
    expect(unset.toolsFor('fixer')).toEqual([]);
    expect(events).toEqual([
      {
        server: 'remote',
        state: 'failed',
        required: false,
        reason: 'its credential variable MCP_REMOTE_TOKEN is not set on the worker',
      },
    ]);
  });
});
