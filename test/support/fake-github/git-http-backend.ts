import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';

interface GitCgiRequest {
  projectRoot: string;
  /** `/<owner>/<repo>.git/info/refs` and the like. */
  pathInfo: string;
  query: string;
  remoteUser: string;
}

/**
 * Runs one smart-HTTP request through `git http-backend` as a CGI: the real git server, so
 * the real git client on the other side speaks its real protocol (v2, gzip bodies, chunked pushes).
 */
export function serveGitCgi(req: IncomingMessage, res: ServerResponse, cgi: GitCgiRequest): Promise<void> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    GIT_PROJECT_ROOT: cgi.projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: cgi.pathInfo,
    QUERY_STRING: cgi.query,
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    // receive-pack is enabled for authenticated users only; REMOTE_USER says we checked.
    REMOTE_USER: cgi.remoteUser,
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    GIT_CONFIG_NOSYSTEM: '1',
  };
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  const protocol = req.headers['git-protocol'];
  if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol;

  return new Promise((resolve, reject) => {
    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let head = Buffer.alloc(0);
    let headersDone = false;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const i = line.indexOf(':');
        if (i < 0) continue;
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      res.write(head.subarray(end + 4));
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (!headersDone) {
        res.statusCode = 500;
        res.end(`git http-backend exited ${code}: ${stderr}`);
      } else {
        res.end();
      }
      resolve();
    });
    req.pipe(child.stdin);
  });
}

/** Refuses deleting or rewriting the default branch, as branch protection does on GitHub. */
export const PROTECT_DEFAULT_BRANCH_HOOK = `#!/bin/sh
default=$(git symbolic-ref HEAD)
zero=0000000000000000000000000000000000000000
while read old new ref; do
  if [ "$ref" = "$default" ]; then
    if [ "$new" = "$zero" ]; then
      echo "GH006: Protected branch update failed: cannot delete the default branch" >&2
      exit 1
    fi
    if [ "$old" != "$zero" ] && ! git merge-base --is-ancestor "$old" "$new"; then
      echo "GH006: Protected branch update failed: force push to the default branch" >&2
      exit 1
    fi
  fi
done
exit 0
`;
