import { existsSync } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isPullwrightError, parseUnifiedDiff } from '@pullwright/core';
import { type DeepFinding, deepScan } from './deep-scan.ts';
import { DEFAULT_RULES } from './default-rules.ts';
import { loadGitleaksConfigFile } from './gitleaks-config.ts';
import { runGit } from './run-git.ts';
import { isSecretFileName, SECRET_FILE_RULE } from './secret-file-name.ts';
import { SecretScanFailedError, SecretScanner } from './secret-scanner.ts';

interface ScanCommandIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdinIsTTY: boolean;
}

const USAGE = `Usage: pullwright scan [--json] [--config <gitleaks.toml>] [--staged | paths...]

Scans files and directories for secrets (skipping .git and node_modules); with --staged,
the files staged for the next commit as git will commit them (a pre-commit hook); with
neither, the lines a unified diff on standard input adds:  git diff --cached | pullwright scan

Each file is scanned as it is, with base64/base64url/hex runs decoded, strings split over
lines joined, and binary files by their printable strings. A file named on the command
line (or added by the diff) that is a secret by name (.env, id_rsa, *.p12, *.key…) is
reported as secret-file; files found by walking a directory are not (a local .env is normal).

  --json             findings as JSON on standard output
  --staged           scan the staged content of added and changed files (run inside the repository)
  --config <file>    rules in gitleaks' TOML format; they replace the defaults unless the
                     file has [extend] useDefault = true. Default: ./.gitleaks.toml when
                     it exists (the repository's own rules and allowlists), else the defaults

Exit status: 0 no secrets, 1 secrets found, 2 usage error or the scan could not complete.
`;

/** The repository's own gitleaks config, read from the directory the scan runs in. */
const REPO_CONFIG = '.gitleaks.toml';

/** Directories never worth scanning: git's object store and installed dependencies. */
const SKIP_DIRS = new Set(['.git', 'node_modules']);
class UsageError extends Error {}

/** git could not list or read the index: the hook must fail closed. */
class StagedReadError extends Error {}

/** A finding with its file; `line` 0 and no preview for a file refused by its name. */
type ScanFinding = DeepFinding & { file: string };

interface ParsedArgs {
  json: boolean;
  staged: boolean;
  config?: string;
  paths: string[];
}

function parseArgs(argv: string[]): ParsedArgs | 'help' {
  const out: ParsedArgs = { json: false, staged: false, paths: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.paths.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '--json') out.json = true;
    else if (arg === '--staged') out.staged = true;
    else if (arg === '--config' || arg === '-c') {
      const value = argv[++i];
      if (value === undefined) throw new UsageError('--config needs a file');
      out.config = value;
    } else if (arg.startsWith('--config=')) out.config = arg.slice('--config='.length);
    else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    else out.paths.push(arg);
  }
  return out;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Where a hook's git says the repository and its index are (`git commit -a` stages into a temporary index). */
const HOOK_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY'] as const;

async function git(args: string[], input?: string): Promise<Buffer> {
  const env: Record<string, string> = {};
  for (const key of HOOK_ENV) {
    const value = process.env[key];
    if (value) env[key] = value;
  }
  try {
    return await runGit(process.cwd(), args, { env, ...(input === undefined ? {} : { input }) });
  } catch (err) {
    throw new StagedReadError((err as Error).message);
  }
}

/**
 * The files the next commit will contain as added or changed, with their staged bytes
 * (`git cat-file` on the index: what will be committed, not the working tree, and no
 * textconv or diff attributes in the way).
 */
async function stagedFiles(): Promise<Array<[string, Buffer]>> {
  const names = (await git(['diff', '--cached', '--name-only', '-z', '--no-renames', '--diff-filter=ACMT']))
    .toString('utf8')
    .split('\0')
    .filter(Boolean);
  if (names.length === 0) return [];
  // cat-file reads one name per line: a name with a newline cannot be asked for, so refuse.
  const odd = names.find((n) => n.includes('\n'));
  if (odd !== undefined) throw new StagedReadError('a staged path contains a newline; rename it');
  const out = await git(['cat-file', '--batch'], `${names.map((n) => `:${n}`).join('\n')}\n`);
  const files: Array<[string, Buffer]> = [];
  let at = 0;
  for (const name of names) {
    const nl = out.indexOf(0x0a, at);
    const header = out.subarray(at, nl).toString('latin1').split(' ');
    // A submodule (gitlink) or an unreadable entry has no blob to scan.
    if (header.length !== 3 || header[1] !== 'blob') {
      at = nl + 1;
      continue;
    }
    const size = Number(header[2]);
    files.push([name, out.subarray(nl + 1, nl + 1 + size)]);
    at = nl + 1 + size + 1;
  }
  return files;
}

/** Files under `target`, and whether each was named on the command line itself. */
async function* walk(target: string, named = true): AsyncGenerator<[string, boolean]> {
  const st = await lstat(target);
  // Symlinks are not followed: a link can point anywhere, including back up the tree.
  if (st.isSymbolicLink()) return;
  if (st.isFile()) {
    yield [target, named];
    return;
  }
  if (!st.isDirectory()) return;
  const entries = await readdir(target, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.isDirectory() && SKIP_DIRS.has(entry.name)) continue;
    yield* walk(path.join(target, entry.name), false);
  }
}

function write(stream: NodeJS.WritableStream, text: string): void {
  stream.write(text);
}

/**
 * `pullwright scan [paths…]`: the logic behind the CLI subcommand, with its streams
 * injected so it runs the same from the bin, a pre-commit hook and tests. Output names
 * rule, file, line and at most the first 4 characters of each secret; never the secret.
 */
export async function runScanCommand(argv: string[], io: ScanCommandIo): Promise<number> {
  let args: ParsedArgs | 'help';
  try {
    args = parseArgs(argv);
  } catch (err) {
    write(io.stderr, `pullwright scan: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args === 'help') {
    write(io.stdout, USAGE);
    return 0;
  }
  if (args.staged && args.paths.length > 0) {
    write(io.stderr, `pullwright scan: --staged takes no paths\n\n${USAGE}`);
    return 2;
  }
  if (!args.staged && args.paths.length === 0 && io.stdinIsTTY) {
    write(io.stderr, `pullwright scan: give paths to scan, or pipe a diff on standard input\n\n${USAGE}`);
    return 2;
  }

  const findings: ScanFinding[] = [];
  let files = 0;
  try {
    const config = args.config ?? (existsSync(REPO_CONFIG) ? REPO_CONFIG : undefined);
    const rules = config ? loadGitleaksConfigFile(path.resolve(config), { defaults: DEFAULT_RULES }) : DEFAULT_RULES;
    const scanner = new SecretScanner({ rules });
    const refuse = (file: string): void => {
      if (isSecretFileName(file)) findings.push({ ruleId: SECRET_FILE_RULE, file, line: 0, preview: '' });
    };
    if (args.staged) {
      for (const [file, bytes] of await stagedFiles()) {
        files++;
        refuse(file);
        for (const f of deepScan(scanner, bytes, file)) findings.push({ ...f, file });
      }
    } else if (args.paths.length === 0) {
      for (const file of parseUnifiedDiff(await readAll(io.stdin))) {
        refuse(file.path);
        const added = file.lines.filter((l) => l.kind === 'add');
        // Added lines are scanned together, so split and multi-line secrets are seen whole.
        for (const f of deepScan(scanner, added.map((l) => l.text).join('\n'), file.path)) {
          findings.push({ ...f, file: file.path, line: added[f.line - 1]?.new ?? 0 });
        }
      }
    } else {
      for (const target of args.paths) {
        for await (const [file, named] of walk(target)) {
          const name = file.split(path.sep).join('/');
          files++;
          if (named) refuse(name);
          for (const f of deepScan(scanner, await readFile(file), name)) findings.push({ ...f, file: name });
        }
      }
    }
  } catch (err) {
    // Fail closed: a hook that cannot scan must not let the commit through.
    const reason = isPullwrightError(err)
      ? err.message
      : (err as NodeJS.ErrnoException).code
        ? `${(err as NodeJS.ErrnoException).code}: ${(err as NodeJS.ErrnoException).path ?? ''}`
        : new SecretScanFailedError('internal', (err as Error).message).message;
    write(io.stderr, `pullwright scan: ${reason}\n`);
    return 2;
  }

  if (args.json) {
    write(io.stdout, `${JSON.stringify({ findings, files }, null, 2)}\n`);
  } else {
    for (const f of findings) {
      const how = f.via ? ` [${f.via}]` : '';
      write(io.stdout, `${f.file}:${f.line}: ${f.ruleId}${f.preview ? ` (${f.preview})` : ''}${how}\n`);
    }
    const where = args.paths.length === 0 ? 'the diff' : `${files} file${files === 1 ? '' : 's'}`;
    write(
      io.stderr,
      findings.length === 0
        ? `pullwright scan: no secrets in ${where}\n`
        : `pullwright scan: ${findings.length} secret${findings.length === 1 ? '' : 's'} found in ${where}\n`,
    );
  }
  return findings.length === 0 ? 0 : 1;
}
