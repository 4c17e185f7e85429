/** Local model-API servers for tests (`@pullwright/agent/testing`): scripted turn by turn. */
export * from './anthropic-fixtures.ts';
export * from './openai-fixtures.ts';
export * from './scripted-model.ts';
export * from './scripted-server.ts';
