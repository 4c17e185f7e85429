import { type Logger, silentLogger } from '@pullwright/core';
import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

/**
 * Default ceiling of one stored conversation (serialized JSON). 8 MiB: a 40-turn conversation
 * with tool outputs capped at 16 000 characters each stays near 1 MB; past the ceiling the
 * last checkpoint that fitted is kept (an earlier turn, still a consistent place to resume).
 */
const MAX_CONVERSATION_BYTES = 8 * 1024 ** 2;

/** Kept this long after the last save (default 7 days): long enough for any retry, then gone. */
export const CONVERSATION_TTL_S = 7 * 24 * 3600;

/** One job's checkpoint, the shape the agent's `ConversationCheckpoint` expects. */
interface ConversationCheckpointHandle {
  load(): Promise<unknown>;
  save(state: unknown): Promise<void>;
  clear(): Promise<void>;
}

interface ConversationCheckpointsOptions {
  /** Applied before anything is stored: the process Redactor (`redactValue`). */
  scrub?: <T>(value: T) => T;
  maxBytes?: number;
  ttlS?: number;
  logger?: Logger;
}

/**
 * Redis storage for the agent's conversation checkpoints: one key per operation and job
 * (`<prefix>:op:{<id>}:conversation:<scope>`, hash-tagged with the operation), a JSON value
 * redacted before it is written, capped in size, expiring on its own.
 */
export class ConversationCheckpoints {
  readonly #scrub: <T>(value: T) => T;
  readonly #maxBytes: number;
  readonly #ttlS: number;
  readonly #logger: Logger;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    options: ConversationCheckpointsOptions = {},
  ) {
    this.#scrub = options.scrub ?? ((v) => v);
    this.#maxBytes = options.maxBytes ?? MAX_CONVERSATION_BYTES;
    this.#ttlS = options.ttlS ?? CONVERSATION_TTL_S;
    this.#logger = options.logger ?? silentLogger();
  }

  /** The checkpoint of one job of an operation; `scope` tells jobs apart (`run`, `revise:2`). */
  for(opId: string, scope: string): ConversationCheckpointHandle {
    const key = this.keys.conversation(opId, scope);
    return {
      load: async () => {
        const text = await this.redis.get(key);
        if (text === null) return undefined;
        try {
          return JSON.parse(text) as unknown;
        } catch {
          return undefined;
        }
      },
      save: async (state) => {
        const text = JSON.stringify(this.#scrub(state));
        const bytes = Buffer.byteLength(text);
        if (bytes > this.#maxBytes) {
          this.#logger.warn(
            { opId, scope, bytes, maxBytes: this.#maxBytes },
            'conversation checkpoint over its cap: the previous one is kept',
          );
          return;
        }
        await this.redis.set(key, text, 'EX', this.#ttlS);
      },
      clear: async () => {
        await this.redis.del(key);
      },
    };
  }
}
