import { createHmac, timingSafeEqual } from 'node:crypto';
import { PullwrightError } from '@pullwright/core';

/**
 * Slack's replay window: a request older (or newer) than this is refused even with a
 * valid signature, so a captured request cannot be sent again later.
 */
const SLACK_SIGNATURE_WINDOW_S = 5 * 60;

export class SlackSignatureError extends PullwrightError<{ reason: string }> {
  constructor(reason: string) {
    // The reason names what was wrong, never the values: a log line must not help forge the next try.
    super('unauthorized', `slack request refused: ${reason}`, { reason });
  }
}

function hmac(secret: string, timestamp: string, rawBody: Buffer): string {
  return createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex');
}

/** The headers Slack sends with a request; for tests and the fake Slack server. */
export function signSlackRequest(
  signingSecret: string,
  rawBody: string | Buffer,
  timestamp = Math.floor(Date.now() / 1000),
): { 'x-slack-request-timestamp': string; 'x-slack-signature': string } {
  const ts = String(timestamp);
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody) : rawBody;
  return { 'x-slack-request-timestamp': ts, 'x-slack-signature': `v0=${hmac(signingSecret, ts, body)}` };
}

/**
 * Checks Slack's v0 signature over the exact bytes received (a re-serialised body would
 * not match), within the replay window; throws `SlackSignatureError` otherwise.
 */
export function verifySlackSignature(input: {
  signingSecret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
  nowMs?: number;
}): void {
  const { timestamp, signature } = input;
  if (!timestamp || !signature) throw new SlackSignatureError('missing signature headers');
  if (!/^\d{1,12}$/.test(timestamp)) throw new SlackSignatureError('malformed timestamp');
  const now = Math.floor((input.nowMs ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > SLACK_SIGNATURE_WINDOW_S) {
    throw new SlackSignatureError('timestamp outside the 5-minute window');
  }
  const match = /^v0=([0-9a-f]{64})$/.exec(signature);
  if (!match) throw new SlackSignatureError('malformed signature');
  const expected = Buffer.from(hmac(input.signingSecret, timestamp, input.rawBody), 'hex');
  const given = Buffer.from(match[1]!, 'hex');
  // Both are 32 bytes here (the regex fixed the length), as timingSafeEqual requires.
  if (!timingSafeEqual(expected, given)) throw new SlackSignatureError('signature mismatch');
}
