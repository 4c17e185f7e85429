import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { defineLuaCommand, ValidationError } from '@pullwright/core';
import type { Result } from 'ioredis';
import { ARTIFACT_NAME, type Artifact, type ArtifactStore } from './artifact-store.ts';
import type { RedisClient } from './redis-client.ts';
import type { RedisKeys } from './redis-keys.ts';

const writeLua = new URL('./write-artifact-2.lua', import.meta.url);

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pwWriteArtifact(
      artifactsKey: string,
      opKey: string,
      name: string,
      chunk: Buffer,
      size: string,
      cap: string,
      mode: 'append' | 'replace',
    ): Result<number, Context>;
  }
}

/**
 * 16 MiB per artifact: a 40-turn transcript with large tool results is a few MiB; the cap
 * keeps one runaway operation from filling a Redis that must never evict.
 */
const DEFAULT_ARTIFACT_CAP_BYTES = 16 * 1024 * 1024;
/** Chunks below this stay plain: deflate gains nothing on a short JSONL line. */
const COMPRESS_FROM_BYTES = 1024;
const PLAIN = 0;
const DEFLATED = 1;

function encode(text: string): { chunk: Buffer; size: number } {
  const raw = Buffer.from(text, 'utf8');
  if (raw.length < COMPRESS_FROM_BYTES) return { chunk: Buffer.concat([Buffer.of(PLAIN), raw]), size: raw.length };
  return { chunk: Buffer.concat([Buffer.of(DEFLATED), deflateRawSync(raw)]), size: raw.length };
}

function decode(chunk: Buffer): string {
  const body = chunk.subarray(1);
  return (chunk[0] === DEFLATED ? inflateRawSync(body) : body).toString('utf8');
}

/**
 * Artifacts in Redis: one hash per operation in the operation's hash slot, so they expire
 * with it and every write is one single-slot script. Large chunks are deflated.
 */
export class RedisArtifactStore implements ArtifactStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly capBytes = DEFAULT_ARTIFACT_CAP_BYTES,
  ) {
    defineLuaCommand(redis, 'pwWriteArtifact', writeLua);
  }

  append(opId: string, name: string, text: string): Promise<void> {
    return this.#write(opId, name, text, 'append');
  }

  put(opId: string, name: string, content: string): Promise<void> {
    return this.#write(opId, name, content, 'replace');
  }

  async read(opId: string, name: string): Promise<Artifact | undefined> {
    checkName(name);
    const key = this.keys.artifacts(opId);
    const [count, truncated] = await this.redis.hmget(key, `${name}:n`, `${name}:truncated`);
    const n = Number(count ?? 0);
    if (n === 0) return truncated ? { content: '', truncated: true } : undefined;
    const fields = Array.from({ length: n }, (_, i) => `${name}:${i}`);
    const chunks = await this.redis.hmgetBuffer(key, ...fields);
    return { content: chunks.map((c) => (c ? decode(c) : '')).join(''), truncated: truncated === '1' };
  }

  async names(opId: string): Promise<string[]> {
    const fields = await this.redis.hkeys(this.keys.artifacts(opId));
    return fields.filter((f) => f.endsWith(':n')).map((f) => f.slice(0, -2));
  }

  async #write(opId: string, name: string, text: string, mode: 'append' | 'replace'): Promise<void> {
    checkName(name);
    const { chunk, size } = encode(text);
    await this.redis.pwWriteArtifact(
      this.keys.artifacts(opId),
      this.keys.operation(opId),
      name,
      chunk,
      String(size),
      String(this.capBytes),
      mode,
    );
  }
}

function checkName(name: string): void {
  if (!ARTIFACT_NAME.test(name)) {
    throw new ValidationError('invalid artifact name', [
      { field: 'name', reason: 'must be a file name: A-Z a-z 0-9 . _ -' },
    ]);
  }
}
