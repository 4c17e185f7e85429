import { createHmac, timingSafeEqual } from 'node:crypto';

/** Marks the credential, so the Redactor's prefix rules and a reader both know what it is. */
const PREFIX = 'pwjob_';

function mac(workerToken: string, subject: string): string {
  return createHmac('sha256', workerToken).update(`pullwright model gateway v1\0${subject}`).digest('base64url');
}

/**
 * The model gateway's credential for one job's subject (an operation or a feature request):
 * what the worker's SDK sends as its API key. An HMAC of the subject under WORKER_TOKEN, so
 * it names one subject only, a leaked one (a transcript, a log line) grants no broker route,
 * and the gateway checks it without shared state. It stops working when the operation ends
 * (the gateway refuses subjects in a final status).
 */
export function jobCredential(workerToken: string, subject: string): string {
  return `${PREFIX}${Buffer.from(subject).toString('base64url')}.${mac(workerToken, subject)}`;
}

/** The subject a credential was issued for, or undefined when it was not issued with this token. */
export function jobCredentialSubject(workerToken: string, credential: string): string | undefined {
  if (!credential.startsWith(PREFIX)) return undefined;
  const [encoded = '', signature = '', ...rest] = credential.slice(PREFIX.length).split('.');
  if (rest.length > 0 || !encoded || !signature) return undefined;
  const subject = Buffer.from(encoded, 'base64url').toString();
  const expected = Buffer.from(mac(workerToken, subject));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? subject : undefined;
}
