export { type McpCallRecord, mcpToolName } from './mcp-agent-tool.ts';
export { type McpServerEvent, McpServerUnavailableError, McpToolbox, type McpToolboxOptions } from './mcp-toolbox.ts';
