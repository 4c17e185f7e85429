import { readFileSync } from 'node:fs';
import { Role } from '@pullwright/core';
import { z } from 'zod';
import { PolicyFileError } from './policy-file-error.ts';

const Handle = z.string().min(1).max(200);

/** One person (or service account) across every entry point, with one role and any groups. */
const IdentityEntry = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._@-]{1,100}$/, 'must be 1-100 of A-Z a-z 0-9 . _ @ -'),
  role: Role,
  groups: z.array(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be a lower-case group name')).default([]),
  /** Where commits made for this person's requests credit them (`Co-authored-by:`); none: no trailer. */
  email: z.email().max(254).optional(),
  /** Slack user ids (`U…`), verified by Slack's request signature. */
  slack: z.array(Handle).default([]),
  /** GitHub logins, verified by the webhook signature. */
  github: z.array(Handle).default([]),
  /** Dashboard user names. */
  dashboard: z.array(Handle).default([]),
  /** `user` values REST callers send; the API token holder vouches for them. */
  api: z.array(Handle).default([]),
});
export const IdentitiesFile = z.array(IdentityEntry).max(10_000);

/** The auto-approval rules approve as this identity. */
export const POLICY_IDENTITY = 'policy';

type Source = 'slack' | 'github' | 'dashboard' | 'api';

export interface Identity {
  id: string;
  /** Null for a caller the configured directory does not name: every action is refused. */
  role: Role | null;
  groups: string[];
  email?: string;
}

/**
 * Maps `(source, user)` to an identity. Without a configured directory every caller is an
 * admin known by its user name — the behaviour before roles existed, when holding the API
 * token (or a verified Slack/GitHub request) was all it took.
 */
export class IdentityDirectory {
  private readonly byHandle = new Map<string, Identity>();

  constructor(private readonly entries: z.infer<typeof IdentitiesFile> | undefined) {
    for (const e of entries ?? []) {
      const identity: Identity = { id: e.id, role: e.role, groups: e.groups, ...(e.email ? { email: e.email } : {}) };
      for (const source of ['slack', 'github', 'dashboard', 'api'] as const)
        for (const handle of e[source]) this.byHandle.set(`${source}\0${handle.toLowerCase()}`, identity);
    }
  }

  /** From `IDENTITIES`: JSON text, or a path to a JSON file. */
  static fromConfig(value: string | undefined): IdentityDirectory {
    if (!value) return new IdentityDirectory(undefined);
    let text = value;
    if (!/^\s*[[{]/.test(value)) {
      try {
        text = readFileSync(value, 'utf8');
      } catch (err) {
        throw new PolicyFileError('IDENTITIES', [
          { field: 'IDENTITIES', reason: `cannot read ${value}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` },
        ]);
      }
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new PolicyFileError('IDENTITIES', [{ field: 'IDENTITIES', reason: `not JSON: ${(err as Error).message}` }]);
    }
    const parsed = IdentitiesFile.safeParse(json);
    if (!parsed.success) throw PolicyFileError.fromZod('IDENTITIES', parsed.error);
    const seen = new Set<string>();
    for (const [i, e] of parsed.data.entries()) {
      if (seen.has(e.id))
        throw new PolicyFileError('IDENTITIES', [{ field: `IDENTITIES.${i}.id`, reason: `duplicate id ${e.id}` }]);
      seen.add(e.id);
    }
    return new IdentityDirectory(parsed.data);
  }

  get configured(): boolean {
    return this.entries !== undefined;
  }

  resolve(by: { source: Source | 'policy'; user: string }): Identity {
    if (by.source === 'policy') return { id: POLICY_IDENTITY, role: 'admin', groups: [] };
    if (!this.configured) return { id: by.user, role: 'admin', groups: [] };
    const found = this.byHandle.get(`${by.source}\0${by.user.toLowerCase()}`);
    return found ?? { id: `${by.source}:${by.user}`, role: null, groups: [] };
  }
}
