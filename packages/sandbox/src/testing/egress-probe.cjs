'use strict';
// Test fixture, run inside the sandbox (a check, or a repository's postinstall script): tries
// each target in turn and prints one line per target.
//   connect:<host>:<port>  CONNECT through $HTTPS_PROXY       → "connect <host>:<port> <status>"
//   get:<url>              plain GET through $HTTP_PROXY       → "get <url> <status> <body>"
//   direct:<host>:<port>   a TCP connection without the proxy  → "direct <host>:<port> connected|<error code>"
//   report:<url>           POSTs every line so far through $HTTP_PROXY (to a test's fake registry)
const http = require('node:http');
const net = require('node:net');

const proxy = process.env.HTTPS_PROXY ? new URL(process.env.HTTPS_PROXY) : undefined;
const lines = [];

function hostPort(text) {
  const i = text.lastIndexOf(':');
  return { host: text.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(text.slice(i + 1)) };
}

function attempt(kind, what) {
  return new Promise((resolve) => {
    if (kind === 'direct') {
      const { host, port } = hostPort(what);
      const socket = net.connect(port, host);
      socket.on('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', (err) => resolve(err.code));
      return;
    }
    if (!proxy) return resolve('no-proxy');
    const via = { host: proxy.hostname, port: Number(proxy.port) };
    if (kind === 'connect') {
      http
        .request({ ...via, method: 'CONNECT', path: what })
        .on('connect', (res, socket) => {
          socket.destroy();
          resolve(String(res.statusCode));
        })
        .on('error', (err) => resolve(err.code))
        .end();
      return;
    }
    const body = kind === 'report' ? lines.join('\n') : undefined;
    const req = http.request({ ...via, method: body === undefined ? 'GET' : 'POST', path: what }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve(`${res.statusCode} ${text.trim()}`));
    });
    req.on('error', (err) => resolve(err.code));
    req.end(body);
  });
}

(async () => {
  for (const target of process.argv.slice(2)) {
    const i = target.indexOf(':');
    const kind = target.slice(0, i);
    const what = target.slice(i + 1);
    const line = `${kind} ${what} ${await attempt(kind, what)}`;
    lines.push(line);
    console.log(line);
  }
})();
