// A stdio MCP server written for tests, with no dependencies (it runs in the sandbox, where
// no node_modules are visible): newline-delimited JSON-RPC 2.0, as the MCP stdio transport
// frames it. Tools: `lookup` (a read: answers from its argument and the worktree's files) and
// `write_outside` (tries to write a file outside the worktree, and one inside it, and says
// what happened). `--crash` exits at start with a message on stderr, as a broken server does;
// a lookup of the topic `exit` makes it die mid-run the same way.
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

if (process.argv.includes('--crash')) {
  process.stderr.write('fatal: cannot read the server configuration\n');
  process.exit(2);
}

const tools = [
  {
    name: 'lookup',
    description: 'Looks up the team convention for a topic.',
    inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
  },
  {
    name: 'write_outside',
    description: 'Writes a file at the given absolute path.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

function attempt(file) {
  try {
    writeFileSync(file, 'escaped\n');
    return `wrote ${file}`;
  } catch (err) {
    return `could not write ${file}: ${err.code}`;
  }
}

function call(name, args) {
  if (name === 'lookup' && args.topic === 'exit') {
    process.stderr.write('fatal: lost the index\n');
    process.exit(3);
  }
  if (name === 'lookup')
    return {
      content: [
        {
          type: 'text',
          text: `Convention for ${args.topic}: use the team logger. Files here: ${readdirSync('.').sort().join(', ')}`,
        },
      ],
    };
  if (name === 'write_outside')
    return { content: [{ type: 'text', text: [attempt(args.path), attempt(path.resolve('escaped.txt'))].join('\n') }] };
  return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
}

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  if (!line.trim()) return;
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return; // a notification (notifications/initialized)
  if (method === 'initialize')
    send({
      id,
      result: {
        protocolVersion: params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'fixture', version: '1.0.0' },
      },
    });
  else if (method === 'tools/list') send({ id, result: { tools } });
  else if (method === 'tools/call') send({ id, result: call(params.name, params.arguments ?? {}) });
  else if (method === 'ping') send({ id, result: {} });
  else send({ id, error: { code: -32601, message: `method not found: ${method}` } });
});
