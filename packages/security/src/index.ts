export * from './path-guard.ts';
export * from './redactor.ts';
