--[[
  Releases a single lock, only for its owner, and tells waiters.

  KEYS[1]  lock key; value "<token> <since ms> <opId>"

  ARGV[1]  opId
  ARGV[2]  release channel of the repo
  ARGV[3]  message to publish

  Returns 1 when released, 0 when the lock is gone or belongs to another operation
  (then nothing is deleted).
]]
local value = redis.call("GET", KEYS[1])
if value and string.match(value, "^%d+ %d+ (.*)$") == ARGV[1] then
  redis.call("DEL", KEYS[1])
  redis.call("PUBLISH", ARGV[2], ARGV[3])
  return 1
end
return 0
