import { ROLES, type Role } from '@pullwright/core';

function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return roleRank(role) >= roleRank(minimum);
}

/** The higher of two roles: merging policies keeps the stricter minimum. */
export function higherRole(a: Role, b: Role): Role {
  return roleRank(a) >= roleRank(b) ? a : b;
}
