import { storageSettings } from '@pullwright/core';
import { importRepository, listRepositories, parseImportSource } from '@pullwright/forge';
import { REPO_HELP } from './help.ts';

function usage(stderr: NodeJS.WritableStream, reason: string): number {
  stderr.write(`pullwright repo: ${reason}\n${REPO_HELP}\n`);
  return 2;
}

/** `pullwright repo add|list`: works on disk only, with or without a running service. */
export async function repoCommand(
  args: string[],
  io: { env: NodeJS.ProcessEnv; stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const [sub, ...rest] = args;
  if (io.env.FORGE === 'github') {
    io.stderr.write(
      'pullwright repo: FORGE=github: repositories come from the GitHub App installation; install the app on the repository instead\n',
    );
    return 2;
  }
  // The service's own reading of FORGE_DIR and DATA_DIR, so both name the same directory.
  const root = storageSettings.schema.parse(io.env).forgeDir;
  if (sub === 'list' && rest.length === 0) {
    const repos = await listRepositories(root);
    if (repos.length === 0) io.stdout.write(`no repositories in ${root}; add one with: pullwright repo add <path>\n`);
    for (const r of repos) io.stdout.write(`${r.repo}\t${r.defaultBranch}\n`);
    return 0;
  }
  if (sub !== 'add') return usage(io.stderr, sub === undefined ? 'missing subcommand' : `unknown subcommand ${sub}`);
  let name: string | undefined;
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === '--name') {
      name = rest[++i];
      if (name === undefined) return usage(io.stderr, '--name needs owner/name');
    } else if (arg.startsWith('--name=')) name = arg.slice('--name='.length);
    else if (arg.startsWith('-')) return usage(io.stderr, `unknown option ${arg}`);
    else positional.push(arg);
  }
  if (positional.length !== 1) return usage(io.stderr, 'add takes one path or git URL');
  const source = parseImportSource(positional[0] as string);
  const imported = await importRepository(root, source, name);
  io.stdout.write(
    `imported ${imported.repo} (${imported.branches} branch${imported.branches === 1 ? '' : 'es'}, default ${imported.defaultBranch}) into ${imported.dir}\n` +
      `ask for a change: POST /v1/operations {"type":"debug","repo":"${imported.repo}","description":"…"}, /debug ${imported.repo} … in Slack, or the dashboard form\n`,
  );
  return 0;
}
