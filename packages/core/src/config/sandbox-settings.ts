import { z } from 'zod';
import { NetworkAllowText } from '../network-allow-entry.ts';
import { envSection } from './env-section.ts';
import { commaList, text } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

export const sandboxSettings = envSection(
  'Sandbox and scanning',
  {
    SANDBOX: envVariable(z.enum(['auto', 'bubblewrap', 'docker', 'none']), {
      doc: 'Where repository commands run. A named sandbox that cannot start stops the worker; `auto` takes bubblewrap when it works, else docker (with SANDBOX_DOCKER_IMAGE), else stops the worker too. Only `none` runs repository code unsandboxed (warned at start, shown on every operation).',
      default: 'auto',
      readBy: READ_BY.worker,
    }),
    SANDBOX_DOCKER_IMAGE: envVariable(z.string().min(1), {
      doc: "Image for SANDBOX=docker: it must hold the toolchains the repositories' checks need.",
      default: 'node:22-bookworm-slim',
      readBy: READ_BY.worker,
    }),
    NETWORK_ALLOW: envVariable(commaList.pipe(z.array(NetworkAllowText)), {
      doc: "Hosts the install step may reach through the worker's egress proxy on top of a repository's `network.allow` (default: its ecosystems' package registries), comma-separated `host[:port]`, `*.` for subdomains. These deployment entries may resolve to private and loopback addresses (an internal registry mirror); never to link-local ones or the service's own ports.",
      defaultDoc: "none: a repository's `network.allow` alone",
      readBy: READ_BY.worker,
    }),
    SECRET_RULES_FILE: envVariable(text, {
      doc: "Extra secret rules in gitleaks' TOML format (a team's own, or `[extend] useDefault = true`).",
      readBy: READ_BY.worker,
    }),
  },
  (env) => ({
    sandbox: { kind: env.SANDBOX, dockerImage: env.SANDBOX_DOCKER_IMAGE },
    /** NETWORK_ALLOW: the deployment's egress entries (see `parseNetworkAllowEntry`). */
    networkAllow: env.NETWORK_ALLOW ?? [],
    secretRulesFile: env.SECRET_RULES_FILE,
  }),
);
