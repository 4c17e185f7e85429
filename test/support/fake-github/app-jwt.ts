import { createPublicKey, type KeyObject, verify } from 'node:crypto';

interface AppJwtClaims {
  iss: string;
  iat: number;
  exp: number;
}

/** GitHub refuses app JWTs that live longer than 10 minutes; its clock-skew allowance is 60 s. */
const MAX_LIFETIME_S = 10 * 60 + 60;

/**
 * Checks an app JWT the way GitHub does: RS256 over `header.payload` with the app's public
 * key, `iss` is the app id, not expired, lifetime at most 10 minutes. Returns why not, or the claims.
 */
export function verifyAppJwt(
  jwt: string,
  publicKey: KeyObject | string,
  appId: string,
  now = Date.now(),
): { ok: true; claims: AppJwtClaims } | { ok: false; reason: string } {
  const parts = jwt.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'not a JWT' };
  const [head, body, sig] = parts as [string, string, string];
  let header: { alg?: string };
  let claims: Partial<AppJwtClaims>;
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'undecodable JWT' };
  }
  if (header.alg !== 'RS256') return { ok: false, reason: `alg ${header.alg} is not RS256` };
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  if (!verify('RSA-SHA256', Buffer.from(`${head}.${body}`), key, Buffer.from(sig, 'base64url'))) {
    return { ok: false, reason: 'signature does not match the app key' };
  }
  if (String(claims.iss) !== appId) return { ok: false, reason: `iss ${claims.iss} is not app ${appId}` };
  const nowS = Math.floor(now / 1000);
  if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return { ok: false, reason: 'iat/exp missing' };
  if (claims.exp <= nowS) return { ok: false, reason: 'expired' };
  if (claims.exp - claims.iat > MAX_LIFETIME_S) return { ok: false, reason: 'lifetime over 10 minutes' };
  return { ok: true, claims: { iss: String(claims.iss), iat: claims.iat, exp: claims.exp } };
}
