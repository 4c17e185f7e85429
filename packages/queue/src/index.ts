export * from "./redis-server.ts";
