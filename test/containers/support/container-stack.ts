import { dockerCommand } from './docker-command.ts';

/** The compose stack the container suite booted (global-setup.ts), as the tests reach it. */
export interface ContainerStack {
  /** The compose project name: every container, network and volume carries it as a label. */
  project: string;
  /** `docker compose` arguments naming the project, its files and its .env. */
  composeArgs: string[];
  /** The API, published on the loopback address (API_BIND, API_PORT). */
  apiUrl: string;
  /** The worker service's limits as the suite's .env sets them. */
  workerLimits: { memoryBytes: number; pids: number; cpus: number };
  /** What the engine held before the stack was booted: teardown must leave exactly this. */
  before: EngineObjects;
}

export interface EngineObjects {
  containers: string[];
  networks: string[];
  volumes: string[];
}

/** `docker compose …` against the suite's stack. */
export function compose(stack: ContainerStack, args: readonly string[], input?: string): Promise<string> {
  return dockerCommand([...stack.composeArgs, ...args], input === undefined ? {} : { input });
}

/** Every container, network and volume on the engine (ids and names, sorted). */
export async function engineObjects(): Promise<EngineObjects> {
  const lines = (text: string) => text.split('\n').filter(Boolean).sort();
  const [containers, networks, volumes] = await Promise.all([
    dockerCommand(['ps', '--all', '--format', '{{.ID}} {{.Names}}']),
    dockerCommand(['network', 'ls', '--format', '{{.ID}} {{.Name}}']),
    dockerCommand(['volume', 'ls', '--format', '{{.Name}}']),
  ]);
  return { containers: lines(containers), networks: lines(networks), volumes: lines(volumes) };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** null: no Docker engine could be had here, and the suite is skipped (never in CI). */
    containerStack: ContainerStack | null;
  }
}
