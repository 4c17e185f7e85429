import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { sendError } from './http-errors.ts';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** `Authorization: Bearer <API_TOKEN>`, compared in constant time (hashes make the lengths equal). */
export function bearerAuth(token: string): RequestHandler {
  const expected = digest(token);
  return (req, res, next) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!.trim()), expected)) {
      res.set('WWW-Authenticate', 'Bearer realm="pullwright"');
      return sendError(res, 401, 'unauthorized', 'missing or invalid bearer token');
    }
    next();
  };
}
