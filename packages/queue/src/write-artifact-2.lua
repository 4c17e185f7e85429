--[[
  Appends a chunk to one artifact of an operation, or replaces the artifact with it, within
  a byte cap. All artifacts of an operation live in one hash, so they expire together with
  the operation (see update-operation-4.lua); a hash created after the operation ended
  takes the operation's remaining lifetime.
  Fields per artifact <name>: <name>:n (chunks), <name>:bytes (uncompressed size),
  <name>:truncated ('1' once the cap refused a chunk), <name>:<i> (chunk i).
  KEYS[1] the operation's artifacts hash
  KEYS[2] the operation key (its TTL is copied)
  ARGV[1] artifact name
  ARGV[2] chunk (binary: see redis-artifact-store.ts)
  ARGV[3] uncompressed size of the chunk in bytes
  ARGV[4] cap on the artifact's uncompressed size in bytes
  ARGV[5] 'append' or 'replace'
  Returns 1 when the chunk was stored, 0 when the cap refused it.
]]
local name = ARGV[1]
if ARGV[5] == 'replace' then
  local n = tonumber(redis.call('HGET', KEYS[1], name .. ':n') or '0')
  for i = 0, n - 1 do redis.call('HDEL', KEYS[1], name .. ':' .. i) end
  redis.call('HDEL', KEYS[1], name .. ':n', name .. ':bytes', name .. ':truncated')
end
local bytes = tonumber(redis.call('HGET', KEYS[1], name .. ':bytes') or '0')
local size = tonumber(ARGV[3])
local stored = 0
if bytes + size > tonumber(ARGV[4]) then
  redis.call('HSET', KEYS[1], name .. ':truncated', '1')
else
  local n = redis.call('HINCRBY', KEYS[1], name .. ':n', 1)
  redis.call('HSET', KEYS[1], name .. ':' .. (n - 1), ARGV[2])
  redis.call('HINCRBY', KEYS[1], name .. ':bytes', size)
  stored = 1
end
local ttl = redis.call('TTL', KEYS[2])
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
return stored
