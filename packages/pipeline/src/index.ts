export * from './merge-operation.ts';
export * from './operation-actions.ts';
export * from './pipeline-deps.ts';
export * from './pull-request-body.ts';
export * from './repo-checks.ts';
export * from './revise-operation.ts';
export * from './run-operation.ts';
export * from './runtime.ts';
