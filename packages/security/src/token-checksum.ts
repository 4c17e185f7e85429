import { crc32 } from 'node:zlib';

/** Checksummed token formats a rule can name with `checksum = "…"` (a Pullwright extension). */
export type TokenChecksum = 'crc32-base62';

export const TOKEN_CHECKSUMS: readonly TokenChecksum[] = ['crc32-base62'];

/**
 * GitHub's and npm's formats (github.blog, 2021-04-05 and 2021-09-23): `prefix_`, 30 random
 * base62 characters, then the CRC32 of those 30 characters in base62, left-padded to 6.
 * Published descriptions disagree on the base62 digit order (0-9A-Za-z or 0-9a-zA-Z), so
 * either is accepted: a chance match of a random string stays below 1 in 2^31.
 */
const ALPHABETS = [
  '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
];

function base62(value: number, alphabet: string): string {
  let out = '';
  let n = value;
  do {
    out = alphabet[n % 62]! + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(6, '0');
}

/** The 6-character suffix a token with this random part carries, in the first digit order. */
export function crc32Base62Suffix(random: string): string {
  return base62(crc32(random) >>> 0, ALPHABETS[0]!);
}

/** True when the token's checksum verifies; the part before the last `_` is the prefix. */
export function verifiesChecksum(kind: TokenChecksum, token: string): boolean {
  switch (kind) {
    case 'crc32-base62': {
      const body = token.slice(token.lastIndexOf('_') + 1);
      if (body.length !== 36) return false;
      const sum = crc32(body.slice(0, 30)) >>> 0;
      const suffix = body.slice(30);
      return ALPHABETS.some((a) => base62(sum, a) === suffix);
    }
  }
}
