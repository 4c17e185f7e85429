--[[
  Locks every path of one grant for one operation, all or nothing.

  Variable key count: the caller passes numkeys = 3 + N, one lock key per path, so every
  key the script touches is declared (Redis Cluster routes on them; the `{owner/repo}`
  hash tag keeps them in one slot).

  KEYS[1]          per-repo fencing counter (string, INCR)
  KEYS[2]          owner index of this operation (set of paths it holds)
  KEYS[3]          repo's set of operations that have an owner index
  KEYS[4 .. 3+N]   lock key per path (hash: op, token, since), in sorted path order

  ARGV[1]          opId
  ARGV[2]          lease in ms
  ARGV[3 .. 2+N]   the paths, in the same order as their lock keys

  Returns
    {1, token}                     granted: each lock carries `token` and expires after the lease
    {0, path, opId, since, ...}    refused: every path held by another operation; nothing written

  A path the same operation already holds is granted again with the new token and a fresh
  lease; its `since` is kept so the board shows how long it has really been held.
]]
local rcall = redis.call
local opId = ARGV[1]
local lease = ARGV[2]
local n = #KEYS - 3

local refused = {0}
local since = {}
for i = 1, n do
  local held = rcall("HMGET", KEYS[3 + i], "op", "since")
  if held[1] then
    if held[1] ~= opId then
      refused[#refused + 1] = ARGV[2 + i]
      refused[#refused + 1] = held[1]
      refused[#refused + 1] = held[2]
    else
      since[i] = held[2]
    end
  end
end
if #refused > 1 then
  return refused
end

local token = rcall("INCR", KEYS[1])
local time = rcall("TIME")
local now = tostring(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
for i = 1, n do
  local key = KEYS[3 + i]
  rcall("HSET", key, "op", opId, "token", token, "since", since[i] or now)
  rcall("PEXPIRE", key, lease)
  rcall("SADD", KEYS[2], ARGV[2 + i])
end
-- The index outlives its locks by one more lease, so a renewal that comes too late can still
-- name what was lost; it is never shortened by a shorter grant.
local indexTtl = 2 * tonumber(lease)
if rcall("PTTL", KEYS[2]) < indexTtl then
  rcall("PEXPIRE", KEYS[2], indexTtl)
end
rcall("SADD", KEYS[3], opId)
return {1, token}
