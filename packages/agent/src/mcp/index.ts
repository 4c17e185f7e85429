export type { McpCallRecord } from './mcp-agent-tool.ts';
export { McpToolbox } from './mcp-toolbox.ts';
