export * from './create-app.ts';
export * from './start-api.ts';
