import { PullwrightError } from '@pullwright/core';

export type CommandRefusal = 'empty' | 'not_allowed' | 'long_running';

/**
 * A command the policy will not run. The message names the rule and the offending word,
 * not the whole command line (which the model wrote and may carry anything); the model gets
 * it as a tool error and can pick another command.
 */
export class CommandRefusedError extends PullwrightError<{ reason: CommandRefusal; detail: string }> {
  constructor(reason: CommandRefusal, detail: string) {
    super('validation_failed', `command refused (${reason}): ${detail}`, { reason, detail });
  }

  get reason(): CommandRefusal {
    return this.context.reason;
  }
}

export type CommandKind = 'install' | 'test' | 'other';

/** A check the repo declares (`.pullwright.yml` or detected); trusted as written. */
interface ConfiguredCheck {
  name: string;
  command: string;
  kind?: CommandKind;
  timeoutMs?: number;
}

interface CommandDecision {
  command: string;
  kind: CommandKind;
  timeoutMs: number;
}

const INSTALL_PREFIXES = ['npm ci', 'npm install', 'python -m pip install', 'python3 -m pip install', 'pip install'];
const TEST_PREFIXES = [
  'npm test',
  'npm run test',
  'npx vitest',
  'npx jest',
  'vitest',
  'jest',
  'node --test',
  'pytest',
  'python -m pytest',
  'python3 -m pytest',
  'go test',
  'cargo test',
  'make test',
];

/**
 * Words that start something that never exits on its own: dev servers, file watchers,
 * process managers (seed 004's denylist). A command that waits on them burns the whole
 * timeout and returns nothing useful, so it is refused up front instead.
 */
const LONG_RUNNING_WORDS = new Set([
  'dev',
  'serve',
  'server',
  'start',
  'watch',
  'preview',
  'http.server',
  'SimpleHTTPServer',
]);
const LONG_RUNNING_FLAGS = new Set([
  '--watch',
  '--watchAll',
  '--watch-all',
  '--serve',
  '--follow',
  '--open',
  '--headed',
]);
/** CLIs that serve when given no subcommand (`vite`, `next`). */
const SERVES_BY_DEFAULT = new Set(['vite', 'next']);
const LONG_RUNNING_PROGRAMS = new Set([
  'nodemon',
  'pm2',
  'forever',
  'http-server',
  'live-server',
  'webpack-dev-server',
  'uvicorn',
  'gunicorn',
  'watchman',
  'top',
  'yes',
]);

/** Timeouts from seed 004: installs and tests get up to 180 s, anything else 60 s. */
const DEFAULT_COMMAND_TIMEOUTS: Readonly<Record<CommandKind, number>> = Object.freeze({
  install: 180_000,
  test: 180_000,
  other: 60_000,
});

interface CommandPolicyOptions {
  checks?: readonly ConfiguredCheck[];
  /** Default {@link DEFAULT_COMMAND_TIMEOUTS}. */
  timeouts?: Partial<Record<CommandKind, number>>;
}

/** Splits on whitespace, honouring simple quotes. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

function startsWith(argv: readonly string[], prefix: string): boolean {
  const want = prefix.split(' ');
  return want.every((word, i) => argv[i] === word);
}

/**
 * Decides whether a command may run and with which timeout. Only the repo's configured
 * checks pass (the model runs checks by name; it never writes a command line), and a check
 * that would never exit — a server or a watcher — is refused with a typed reason. This is a
 * policy, not a boundary: whatever passes still runs inside the sandbox runner, which is
 * what actually contains it.
 */
export class CommandPolicy {
  readonly #checks: Map<string, ConfiguredCheck>;
  readonly #timeouts: Record<CommandKind, number>;

  constructor(options: CommandPolicyOptions = {}) {
    this.#checks = new Map((options.checks ?? []).map((c) => [c.command.trim(), c]));
    this.#timeouts = { ...DEFAULT_COMMAND_TIMEOUTS, ...options.timeouts };
  }

  /** Returns how to run `command`, or throws {@link CommandRefusedError}. */
  check(command: string): CommandDecision {
    const line = command.trim();
    if (line === '') throw new CommandRefusedError('empty', 'no command given');
    const configured = this.#checks.get(line);
    if (!configured) {
      // Program and subcommand only: arguments may hold URLs with credentials or tokens.
      const argv = words(line);
      const sub = argv[1] && /^[a-z][a-z0-9:_-]*$/.test(argv[1]) ? ` ${argv[1]}` : '';
      throw new CommandRefusedError('not_allowed', `"${argv[0]}${sub}" is not a configured check`);
    }
    // Trusted as written (it may chain with &&), but still never a server or watcher.
    for (const segment of line.split(/&&|\|\||[;|&\n]/)) this.#refuseLongRunning(words(segment));
    const kind = configured.kind ?? this.#kindOf(words(line));
    return { command: line, kind, timeoutMs: configured.timeoutMs ?? this.#timeouts[kind] };
  }

  #refuseLongRunning(argv: readonly string[]): void {
    const refuse = (detail: string) => new CommandRefusedError('long_running', detail);
    const program = argv[0]?.split('/').at(-1) ?? '';
    const tool = program === 'npx' ? (argv[1] ?? '') : program;
    const toolArgs = argv.slice(program === 'npx' ? 2 : 1);
    if (LONG_RUNNING_PROGRAMS.has(tool)) throw refuse(`"${tool}" does not exit on its own`);
    if (SERVES_BY_DEFAULT.has(tool) && toolArgs.every((w) => w.startsWith('-'))) {
      throw refuse(`"${tool}" without a subcommand starts a dev server`);
    }
    if (tool === 'tail' && toolArgs.some((w) => /^-[a-zA-Z]*[fF]/.test(w))) throw refuse('"tail -f" follows forever');
    if (tool === 'sleep' && toolArgs[0] === 'infinity') throw refuse('"sleep infinity" never ends');
    if (tool === 'tsc' && toolArgs.includes('-w')) throw refuse('"-w" starts a watcher');
    for (const word of toolArgs) {
      const flag = word.split('=')[0] ?? word;
      if (LONG_RUNNING_FLAGS.has(flag)) throw refuse(`"${flag}" starts a watcher or server`);
      if (LONG_RUNNING_WORDS.has(word)) throw refuse(`"${word}" starts a server or watcher`);
    }
  }

  #kindOf(argv: readonly string[]): CommandKind {
    if (INSTALL_PREFIXES.some((p) => startsWith(argv, p))) return 'install';
    if (TEST_PREFIXES.some((p) => startsWith(argv, p))) return 'test';
    return 'other';
  }
}
