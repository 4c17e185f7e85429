export * from './git-client.ts';
export * from './interdiff.ts';
export * from './push-content.ts';
export * from './workspace-manager.ts';
