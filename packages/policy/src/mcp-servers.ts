import type { FieldIssue } from '@pullwright/core';
import { PolicyFileError } from './policy-file-error.ts';
import {
  MCP_ROLES,
  type McpRole,
  type McpServerEntry,
  type McpSettings,
  type RepoPolicyFile,
  type ServicePolicyFile,
} from './policy-schema.ts';

/** One MCP server an operation starts, with every default filled in. */
export interface McpServer {
  name: string;
  /** Which file configured it: the service's `POLICY_FILE` or the repository's `.pullwright.yml`. */
  origin: 'service' | 'repository';
  transport: { kind: 'stdio'; command: string } | { kind: 'http'; url: string; credentialEnv?: string };
  /** The tools each role may call (`*`: all); empty for a role it does not name. */
  roles: Record<McpRole, string[]>;
  required: boolean;
  timeoutMs: number;
}

/** One tool call's deadline unless the server says otherwise: a lookup, not a build. */
const DEFAULT_MCP_TIMEOUT_MS = 60_000;

function resolve(name: string, entry: McpServerEntry, origin: McpServer['origin']): McpServer {
  return {
    name,
    origin,
    transport: entry.command
      ? { kind: 'stdio', command: entry.command }
      : { kind: 'http', url: entry.url!, ...(entry.credential_env ? { credentialEnv: entry.credential_env } : {}) },
    roles: Object.fromEntries(MCP_ROLES.map((r) => [r, entry.roles[r] ?? []])) as Record<McpRole, string[]>,
    required: entry.required ?? false,
    timeoutMs: entry.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS,
  };
}

/**
 * The MCP servers of one operation: the service's, then the repository's. A repository cannot
 * redefine a service server (same name), and its HTTP servers may only name hosts the service
 * lists in `allow.mcp_hosts`: the worker connects from inside the network, with a credential,
 * so a repository must not choose where. Throws `PolicyFileError` naming each field.
 */
export function resolveMcpServers(
  service: Pick<ServicePolicyFile, 'mcp' | 'allow'>,
  repo: Pick<RepoPolicyFile, 'mcp'> | undefined,
  file = '.pullwright.yml',
): McpServer[] {
  const servers = entries(service.mcp).map(([name, entry]) => resolve(name, entry, 'service'));
  const issues: FieldIssue[] = [];
  const hosts = new Set((service.allow?.mcp_hosts ?? []).map((h) => h.toLowerCase()));
  for (const [name, entry] of entries(repo?.mcp)) {
    const field = [file, 'mcp', 'servers', name].join('.');
    if (servers.some((s) => s.name === name)) {
      issues.push({ field, reason: 'the service already defines a server of this name' });
      continue;
    }
    if (entry.url !== undefined) {
      const host = new URL(entry.url).hostname.toLowerCase();
      if (!hosts.has(host)) {
        issues.push({ field: `${field}.url`, reason: `host ${host} is not in the service's allow.mcp_hosts` });
        continue;
      }
    }
    servers.push(resolve(name, entry, 'repository'));
  }
  if (issues.length > 0) throw new PolicyFileError(file, issues);
  return servers;
}

function entries(settings: McpSettings | undefined): [string, McpServerEntry][] {
  return Object.entries(settings?.servers ?? {});
}
