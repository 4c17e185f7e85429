import { createHmac, timingSafeEqual } from 'node:crypto';

/** The hex HMAC-SHA256 of `body` under `secret`: what webhook senders put in their signature header. */
export function hmacSha256Hex(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Whether `givenHex` is the HMAC-SHA256 of `body` under `secret`, compared in constant time.
 * Anything that is not 64 hex digits is simply not a match.
 */
export function hmacSha256Matches(secret: string, body: Buffer | string, givenHex: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(givenHex)) return false;
  return timingSafeEqual(Buffer.from(hmacSha256Hex(secret, body), 'hex'), Buffer.from(givenHex, 'hex'));
}
