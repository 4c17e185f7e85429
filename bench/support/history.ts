import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/** How much history to add: `commits` commits, each rewriting one of `files` files under `dir` with `bytes` of fresh content. */
interface HistoryShape {
  commits: number;
  files: number;
  bytes: number;
  dir: string;
}

/**
 * Appends history to `main` of the repository in `work` with `git fast-import` (seconds, not
 * minutes of `git commit`). A real repository's history outweighs its checkout: a clone pays
 * for it, a warm mirror and its worktrees do not.
 */
export async function appendHistory(work: string, shape: HistoryShape): Promise<void> {
  const parts: Buffer[] = [];
  const data = (text: string | Buffer) => {
    const body = typeof text === 'string' ? Buffer.from(text) : text;
    parts.push(Buffer.from(`data ${body.length}\n`), body, Buffer.from('\n'));
  };
  for (let i = 0; i < shape.commits; i++) {
    parts.push(Buffer.from(`commit refs/heads/main\ncommitter bench <bench@localhost> ${1_700_000_000 + i} +0000\n`));
    data(`history ${i}`);
    if (i === 0) parts.push(Buffer.from('from refs/heads/main^0\n'));
    parts.push(Buffer.from(`M 100644 inline ${shape.dir}/file-${i % shape.files}.txt\n`));
    data(randomBytes(Math.ceil(shape.bytes * 0.75)).toString('base64'));
  }
  await new Promise<void>((resolve, reject) => {
    const child = spawn('git', ['fast-import', '--quiet'], { cwd: work, stdio: ['pipe', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`))));
    child.stdin.end(Buffer.concat(parts));
  });
}
