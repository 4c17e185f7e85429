/** semver ships no types; these are the calls the tests make (see semver's README). */
declare module 'semver' {
  export function minVersion(range: string): { version: string } | null;
  export function satisfies(version: string, range: string): boolean;
}
