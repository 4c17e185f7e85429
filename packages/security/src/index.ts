export * from './path-guard.ts';
export * from './redactor.ts';
export * from './git-hardening.ts';
