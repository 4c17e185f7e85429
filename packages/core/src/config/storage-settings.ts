import path from 'node:path';
import { z } from 'zod';
import { envSection } from './env-section.ts';
import { text } from './env-values.ts';
import { envVariable, READ_BY } from './env-variable.ts';

export const storageSettings = envSection(
  'Files',
  {
    DATA_DIR: envVariable(z.string().min(1), {
      doc: "This process's own files: the embedded Redis data and the generated API token of `npm start`. Nothing another process reads.",
      default: '.pullwright',
      readBy: READ_BY.every,
    }),
    FORGE_DIR: envVariable(text, {
      doc: "The local forge's bare repositories (`<FORGE_DIR>/<owner>/<name>.git`). Processes on one forge must see it at the same path (compose: `/srv/forge`).",
      defaultDoc: '`<DATA_DIR>/forge`',
      readBy: READ_BY.every,
    }),
    WORKSPACE_DIR: envVariable(text, {
      doc: 'Git mirrors and worktrees (the API reads mirrors for interdiffs).',
      defaultDoc: '`<DATA_DIR>/workspace`',
      readBy: READ_BY.every,
    }),
  },
  (env) => {
    const dataDir = path.resolve(env.DATA_DIR);
    return {
      dataDir,
      workspaceDir: path.resolve(env.WORKSPACE_DIR ?? path.join(dataDir, 'workspace')),
      forgeDir: path.resolve(env.FORGE_DIR ?? path.join(dataDir, 'forge')),
    };
  },
);
