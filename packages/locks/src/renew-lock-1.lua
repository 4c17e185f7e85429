--[[
  Extends a single lock, only for its owner.

  KEYS[1]  lock key; value "<token> <since ms> <opId>"

  ARGV[1]  opId
  ARGV[2]  lease in ms

  Returns 1 when renewed, 0 when the lock is gone or belongs to another operation.
]]
local value = redis.call("GET", KEYS[1])
if value and string.match(value, "^%d+ %d+ (.*)$") == ARGV[1] then
  redis.call("PEXPIRE", KEYS[1], ARGV[2])
  return 1
end
return 0
