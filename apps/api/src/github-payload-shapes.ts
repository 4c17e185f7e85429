import { z } from 'zod';

/** The parts of GitHub's webhook payloads every handler reads; the rest of a payload passes through. */
export const GitHubUser = z.object({ login: z.string(), type: z.string().optional() });
export type GitHubUser = z.infer<typeof GitHubUser>;
export const GitHubRepository = z.object({ full_name: z.string() });
