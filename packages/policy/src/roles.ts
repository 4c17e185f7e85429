import { z } from 'zod';

/**
 * The seed's agent positions as a ladder: each role may do everything the roles below it
 * may (propose → commit to feature branches → merge → deploy → administer).
 */
export const ROLES = ['proposer', 'committer', 'merger', 'deployer', 'admin'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return roleRank(role) >= roleRank(minimum);
}

/** The higher of two roles: merging policies keeps the stricter minimum. */
export function higherRole(a: Role, b: Role): Role {
  return roleRank(a) >= roleRank(b) ? a : b;
}
