--[[
  Extends a single lock, only for its owner.

  KEYS[1]  lock key (hash: op, token, since)

  ARGV[1]  opId
  ARGV[2]  lease in ms

  Returns 1 when renewed, 0 when the lock is gone or belongs to another operation.
]]
if redis.call("HGET", KEYS[1], "op") == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 1
end
return 0
