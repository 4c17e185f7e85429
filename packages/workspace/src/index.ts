export * from './git-client.ts';
export * from './workspace-manager.ts';
