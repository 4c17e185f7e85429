import { type Logger as PinoLogger, pino } from 'pino';

export type Logger = PinoLogger;

/** Anything that can scrub a string: the security package's Redactor fits. */
interface TextScrubber {
  redact(text: string): string;
}

/**
 * Keys whose values never reach a log line, wherever they appear (pino paths, one level
 * of nesting and the usual HTTP header spellings).
 */
const SECRET_KEYS = [
  'token',
  'apiKey',
  'api_key',
  'password',
  'secret',
  'privateKey',
  'authorization',
  'cookie',
  'signingSecret',
  'webhookSecret',
];
const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-slack-signature"]',
  'headers["x-hub-signature-256"]',
];

interface LoggerOptions {
  level?: string;
  name?: string;
  /** Pattern scrub applied to every serialized line, after key-based redaction. */
  scrubber?: TextScrubber;
  /** Where lines go; stdout when omitted. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const { scrubber } = options;
  const destination = options.destination ?? process.stdout;
  const stream = scrubber ? { write: (line: string) => destination.write(scrubber.redact(line)) } : destination;
  return pino(
    {
      level: options.level ?? 'info',
      ...(options.name ? { name: options.name } : {}),
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    stream,
  );
}

/** For libraries: a logger that prints nothing unless the caller passes one. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
