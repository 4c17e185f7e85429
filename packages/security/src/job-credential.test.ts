import { describe, expect, it } from 'vitest';
import { jobCredential, jobCredentialSubject } from './job-credential.ts';

const TOKEN = 'worker-token-0123456789abcdef';

describe('jobCredential', () => {
  const good = jobCredential(TOKEN, 'op_123');
  it.each([
    ['the credential as issued', good, 'op_123'],
    ['issued under another worker token', jobCredential('another-token-0123456789', 'op_123'), undefined],
    [
      'another subject with this signature',
      `pwjob_${Buffer.from('op_999').toString('base64url')}.${good.split('.')[1]}`,
      undefined,
    ],
    ['no prefix', good.slice('pwjob_'.length), undefined],
    ['no signature', good.split('.')[0]!, undefined],
    ['a signature cut short', good.slice(0, -2), undefined],
    ['an extra part', `${good}.x`, undefined],
    ['the worker token itself', TOKEN, undefined],
    ['empty', '', undefined],
  ])('%s', (_what, credential, subject) => {
    expect(jobCredentialSubject(TOKEN, credential)).toBe(subject);
  });
});
