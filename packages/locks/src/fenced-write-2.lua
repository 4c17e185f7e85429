--[[
  A resource guarded by fencing tokens, for the lock property test: it accepts a write only
  when the writer's token is at least the highest it has accepted, and logs what it accepted.

  KEYS[1]  highest token accepted so far (string)
  KEYS[2]  log of accepted writes (list of "opId token")

  ARGV[1]  the writer's fencing token
  ARGV[2]  the writer's opId

  Returns 1 when accepted, 0 when refused as stale.
]]
local token = tonumber(ARGV[1])
local highest = tonumber(redis.call("GET", KEYS[1]) or "0")
if token < highest then
  return 0
end
redis.call("SET", KEYS[1], token)
redis.call("RPUSH", KEYS[2], ARGV[2] .. " " .. ARGV[1])
return 1
