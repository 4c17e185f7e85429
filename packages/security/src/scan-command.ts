import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isPullwrightError } from '@pullwright/core';
import { DEFAULT_RULES } from './default-rules.ts';
import { loadGitleaksConfigFile } from './gitleaks-config.ts';
import { type SecretFinding, SecretScanner } from './secret-scanner.ts';

export interface ScanCommandIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdinIsTTY: boolean;
}

const USAGE = `Usage: pullwright scan [--json] [--config <gitleaks.toml>] [paths...]

Scans files and directories for secrets (skipping .git and node_modules), or, with no
paths, the lines a unified diff on standard input adds:  git diff --cached | pullwright scan

  --json             findings as JSON on standard output
  --config <file>    rules in gitleaks' TOML format; they replace the defaults unless the
                     file has [extend] useDefault = true

Exit status: 0 no secrets, 1 secrets found, 2 usage error or the scan could not complete.
`;

/** Directories never worth scanning: git's object store and installed dependencies. */
const SKIP_DIRS = new Set(['.git', 'node_modules']);
/** A NUL byte in the first 8 KB marks a binary file, as git decides it. */
const BINARY_SNIFF = 8000;

class UsageError extends Error {}

interface ParsedArgs {
  json: boolean;
  config?: string;
  paths: string[];
}

function parseArgs(argv: string[]): ParsedArgs | 'help' {
  const out: ParsedArgs = { json: false, paths: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.paths.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '--json') out.json = true;
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

async function* walk(target: string): AsyncGenerator<string> {
  const st = await lstat(target);
  // Symlinks are not followed: a link can point anywhere, including back up the tree.
  if (st.isSymbolicLink()) return;
  if (st.isFile()) {
    yield target;
    return;
  }
  if (!st.isDirectory()) return;
  const entries = await readdir(target, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.isDirectory() && SKIP_DIRS.has(entry.name)) continue;
    yield* walk(path.join(target, entry.name));
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
  if (args.paths.length === 0 && io.stdinIsTTY) {
    write(io.stderr, `pullwright scan: give paths to scan, or pipe a diff on standard input\n\n${USAGE}`);
    return 2;
  }

  let findings: SecretFinding[] = [];
  let files = 0;
  const skipped: string[] = [];
  try {
    const rules = args.config
      ? loadGitleaksConfigFile(path.resolve(args.config), { defaults: DEFAULT_RULES })
      : DEFAULT_RULES;
    const scanner = new SecretScanner({ rules });
    if (args.paths.length === 0) {
      findings = scanner.scanDiff(await readAll(io.stdin));
    } else {
      for (const target of args.paths) {
        for await (const file of walk(target)) {
          const bytes = await readFile(file);
          if (bytes.subarray(0, BINARY_SNIFF).includes(0)) {
            skipped.push(file);
            continue;
          }
          files++;
          findings.push(...scanner.scanText(bytes.toString('utf8'), file.split(path.sep).join('/')));
        }
      }
    }
  } catch (err) {
    // Fail closed: a hook that cannot scan must not let the commit through.
    const reason = isPullwrightError(err)
      ? err.message
      : (err as NodeJS.ErrnoException).code
        ? `${(err as NodeJS.ErrnoException).code}: ${(err as NodeJS.ErrnoException).path ?? ''}`
        : (err as Error).message;
    write(io.stderr, `pullwright scan: ${reason}\n`);
    return 2;
  }

  if (args.json) {
    write(io.stdout, `${JSON.stringify({ findings, files, skipped }, null, 2)}\n`);
  } else {
    for (const f of findings) write(io.stdout, `${f.file}:${f.line}: ${f.ruleId} (${f.preview})\n`);
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
