import { z } from 'zod';
import { envSection } from './env-section.ts';
import { text } from './env-values.ts';
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
    SECRET_RULES_FILE: envVariable(text, {
      doc: "Extra secret rules in gitleaks' TOML format (a team's own, or `[extend] useDefault = true`).",
      readBy: READ_BY.worker,
    }),
  },
  (env) => ({
    sandbox: { kind: env.SANDBOX, dockerImage: env.SANDBOX_DOCKER_IMAGE },
    secretRulesFile: env.SECRET_RULES_FILE,
  }),
);
