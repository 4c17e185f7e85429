export * from './git-hardening.ts';
export * from './path-guard.ts';
export * from './redactor.ts';
