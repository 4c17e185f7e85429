export * from './create-app.ts';
export * from './slack-services.ts';
export * from './start-api.ts';
