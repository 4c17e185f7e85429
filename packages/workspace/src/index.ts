export * from './dependency-cache.ts';
export * from './forge-transport-error.ts';
export * from './git-client.ts';
export * from './interdiff.ts';
export * from './nested-git-data.ts';
export * from './push-content.ts';
export * from './tree-hash.ts';
export * from './workspace-manager.ts';
