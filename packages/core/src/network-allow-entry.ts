import { z } from 'zod';

/**
 * One host the install step may reach through the egress proxy: `registry.npmjs.org`,
 * `*.pythonhosted.org` (any subdomain, not the bare name), an address literal (`10.0.0.5`,
 * `[fd00::5]`), each with an optional `:port` (default: any port). Written in
 * `.pullwright.yml` (`network.allow`) and in NETWORK_ALLOW; matched by `EgressProxy`.
 */
export interface NetworkAllowEntry {
  /** Lower case, without brackets; `*.` kept for a suffix match. */
  host: string;
  port?: number;
}

const ENTRY =
  /^(?<host>(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(?<port>\d{1,5}))?$/;

/** `host[:port]` → the entry, or undefined when it is not one (a URL, a path, a bare `*`). */
export function parseNetworkAllowEntry(text: string): NetworkAllowEntry | undefined {
  const m = ENTRY.exec(text.trim().toLowerCase());
  if (!m?.groups) return undefined;
  const port = m.groups.port === undefined ? undefined : Number(m.groups.port);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  const host = m.groups.host!.replace(/^\[(.*)\]$/, '$1');
  return port === undefined ? { host } : { host, port };
}

/** The zod shape of one entry, for the policy file and the environment. */
export const NetworkAllowText = z
  .string()
  .max(260)
  .refine((s) => parseNetworkAllowEntry(s) !== undefined, 'must be host or host:port (a leading *. for subdomains)');
