/** A grant as its holder saw it: performance.now() before the call and at the reply. */
export interface GrantRecord {
  opId: string;
  token: number;
  paths: string[];
  sentAt: number;
  replyAt: number;
}

/**
 * A critical section a holder claims: from just after its grant to a moment at which, by its
 * own clock, its lease on `path` was still valid (start of the call that granted or last
 * renewed it, plus the lease, minus a margin).
 */
export interface SectionRecord {
  path: string;
  opId: string;
  token: number;
  start: number;
  end: number;
  /** Fenced writes the holder made to the path inside the section that the resource refused. */
  refusedWrites: number;
}

/** A holder found its lock gone (renew said lost, or release did not free it) while its lease was valid. */
export interface VanishedRecord {
  path: string;
  opId: string;
  at: number;
}

export interface LockHistory {
  grants: GrantRecord[];
  sections: SectionRecord[];
  vanished: VanishedRecord[];
  /** Per path, the resource's log of accepted writes in order: "opId token". */
  accepted: Map<string, string[]>;
}

/**
 * Checks a recorded history of the file locks; returns the violations found (none = pass).
 *
 * - Mutual exclusion: claimed sections on one path never overlap in time. All clients run
 *   in one process, so their performance.now() readings share one monotonic clock.
 * - Fencing tokens are unique per grant and only grow: a grant whose call started after
 *   another's reply has a higher token (the counter is linearizable).
 * - The resource accepts non-decreasing tokens only, each token belongs to one operation,
 *   and every accepted write comes from a grant of that path with that token, so no two
 *   holders' writes interleave.
 * - Inside a claimed section none of the holder's fenced writes was refused: nobody with a
 *   newer token can have written while the lock was really ours.
 * - No lock vanished while its lease was valid: only another client's release (or a steal)
 *   can remove it before it expires.
 */
export function checkLockHistory(history: LockHistory): string[] {
  const violations: string[] = [];
  for (const v of history.vanished) {
    violations.push(`${v.opId} lost ${v.path} at ${v.at.toFixed(2)} while its lease was valid`);
  }

  const byPath = new Map<string, SectionRecord[]>();
  for (const section of history.sections) {
    const list = byPath.get(section.path) ?? [];
    list.push(section);
    byPath.set(section.path, list);
    if (section.refusedWrites > 0) {
      violations.push(`${section.opId} had ${section.refusedWrites} write(s) to ${section.path} refused while valid`);
    }
  }
  for (const [path, sections] of byPath) {
    sections.sort((a, b) => a.start - b.start);
    let last: SectionRecord | undefined;
    for (const section of sections) {
      if (last && section.start < last.end) {
        violations.push(
          `${path}: ${section.opId} (token ${section.token}) entered at ${section.start.toFixed(2)} while ` +
            `${last.opId} (token ${last.token}) held it until ${last.end.toFixed(2)}`,
        );
      }
      if (!last || section.end > last.end) last = section;
    }
  }

  const tokenOwner = new Map<number, GrantRecord>();
  for (const grant of history.grants) {
    const other = tokenOwner.get(grant.token);
    if (other) violations.push(`token ${grant.token} granted to both ${other.opId} and ${grant.opId}`);
    tokenOwner.set(grant.token, grant);
  }
  const byReply = [...history.grants].sort((a, b) => a.replyAt - b.replyAt);
  const bySent = [...history.grants].sort((a, b) => a.sentAt - b.sentAt);
  let done = 0;
  let highest: GrantRecord | undefined;
  for (const grant of bySent) {
    while (done < byReply.length && byReply[done]!.replyAt < grant.sentAt) {
      const finished = byReply[done++]!;
      if (!highest || finished.token > highest.token) highest = finished;
    }
    if (highest && grant.token <= highest.token) {
      violations.push(
        `token went back: ${grant.opId} got ${grant.token} after ${highest.opId} had received ${highest.token}`,
      );
    }
  }

  for (const [path, log] of history.accepted) {
    let previous = 0;
    const seen = new Set<string>();
    let current = '';
    for (const entry of log) {
      const [opId, tokenText] = entry.split(' ');
      const token = Number(tokenText);
      if (token < previous) violations.push(`${path}: accepted token ${token} after ${previous}`);
      previous = Math.max(previous, token);
      const grant = tokenOwner.get(token);
      if (!grant || grant.opId !== opId || !grant.paths.includes(path)) {
        violations.push(`${path}: accepted a write by ${opId} with token ${token} it was never granted for this path`);
      }
      if (entry !== current) {
        if (seen.has(entry)) violations.push(`${path}: writes of ${entry} resumed after another holder wrote`);
        seen.add(entry);
        current = entry;
      }
    }
  }
  return violations;
}
