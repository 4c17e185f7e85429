export { createSlackServices, type SlackServices } from './slack-services.ts';
export { type RunningApi, startApi } from './start-api.ts';
