--[[
  Takes a single lock (the merge lock) for one operation.

  KEYS[1]  lock key (hash: op, token, since)
  KEYS[2]  per-repo fencing counter (string, INCR), shared with the file locks

  ARGV[1]  opId
  ARGV[2]  lease in ms

  Returns
    {1, token}          granted, or granted again to the same operation with a new token
    {0, opId, since}    held by another operation; nothing written
]]
local rcall = redis.call
local held = rcall("HMGET", KEYS[1], "op", "since")
if held[1] and held[1] ~= ARGV[1] then
  return {0, held[1], held[2]}
end
local token = rcall("INCR", KEYS[2])
local since = held[2]
if not since then
  local time = rcall("TIME")
  since = tostring(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
end
rcall("HSET", KEYS[1], "op", ARGV[1], "token", token, "since", since)
rcall("PEXPIRE", KEYS[1], ARGV[2])
return {1, token}
