export { DependencyCache, type DependencySpec } from './dependency-cache.ts';
export { ForcePushRefusedError, GitClient, gitClient, isAncestor } from './git-client.ts';
export { interdiff } from './interdiff.ts';
export { findNestedGitData, NestedGitDataError, removeNestedGitData } from './nested-git-data.ts';
export { listPushContent } from './push-content.ts';
export { worktreeTreeHash } from './tree-hash.ts';
export { type PreparedWorkspace, type TreeEntry, WorkspaceManager } from './workspace-manager.ts';
