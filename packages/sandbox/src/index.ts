export { BubblewrapRunner } from './bubblewrap-runner.ts';
export { type CommandKind, CommandPolicy } from './command-policy.ts';
export type { CommandResult, CommandRunner, CommandSpec, RunningCommand } from './command-runner.ts';
export { createCommandRunner } from './create-command-runner.ts';
export { DockerRunner } from './docker-runner.ts';
export { type DeploymentEgress, EgressProxy, type RefusedConnection } from './egress-proxy.ts';
export { NoCommandRunner } from './no-command-runner.ts';
export { ProcessRunner } from './process-runner.ts';
