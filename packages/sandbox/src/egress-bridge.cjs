'use strict';
// Runs INSIDE the sandbox, as the first process of a networked command (the install step):
//   node egress-bridge.cjs <proxy unix socket> <command> [args...]
// The sandbox has its own network namespace with nothing but loopback; its one way out is the
// worker's egress proxy, whose unix socket is mounted in. This listens on a free loopback port
// of the sandbox, forwards every connection to that socket, then runs the command with the
// proxy variables pointing here and exits with its status. Plain JavaScript (no TypeScript
// loader in the sandbox), read by the sandbox's own node; no dependency but node itself.
const net = require('node:net');
const os = require('node:os');
const { spawn } = require('node:child_process');

const [socketPath, file, ...args] = process.argv.slice(2);

const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', end).on('close', end);
  upstream.on('error', end).on('close', end);
  client.pipe(upstream).pipe(client);
});

server.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  const env = { ...process.env };
  for (const name of [
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'http_proxy',
    'https_proxy',
    'npm_config_proxy',
    'npm_config_https_proxy',
  ])
    env[name] = url;
  const child = spawn(file, args, { stdio: 'inherit', env });
  child.on('error', (err) => {
    process.stderr.write(`egress bridge: cannot start ${file}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
});
