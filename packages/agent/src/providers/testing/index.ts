/** Local model-API servers for tests (`@pullwright/agent/testing`): scripted turn by turn. */
export { anthropicError, anthropicMessage, anthropicStream } from './anthropic-fixtures.ts';
export { chatCompletion } from './openai-fixtures.ts';
export { ScriptedModel, type ScriptedReply, textReply, toolCall } from './scripted-model.ts';
export {
  json,
  type RecordedRequest,
  type Responder,
  type ScriptedServer,
  sse,
  startScriptedServer,
} from './scripted-server.ts';
