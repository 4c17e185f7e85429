--[[
  Takes a single lock (the merge lock) for one operation.

  KEYS[1]  lock key; value "<token> <since ms> <opId>", as for file locks
  KEYS[2]  per-repo fencing counter (string, INCR), shared with the file locks

  ARGV[1]  opId
  ARGV[2]  lease in ms

  Returns
    {1, token}          granted, or granted again to the same operation with a new token
    {0, opId, since}    held by another operation; nothing written
]]
local rcall = redis.call
local value = rcall("GET", KEYS[1])
local since
if value then
  local heldSince, holder = string.match(value, "^%d+ (%d+) (.*)$")
  if holder ~= ARGV[1] then
    return {0, holder, heldSince}
  end
  since = heldSince
end
local token = rcall("INCR", KEYS[2])
if not since then
  local time = rcall("TIME")
  since = tostring(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
end
rcall("SET", KEYS[1], token .. " " .. since .. " " .. ARGV[1], "PX", ARGV[2])
return {1, token}
