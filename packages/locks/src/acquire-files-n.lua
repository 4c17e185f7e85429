--[[
  Locks every path of one grant for one operation, all or nothing.

  Variable key count: the caller passes numkeys = 3 + N, one lock key per path, so every
  key the script touches is declared (Redis Cluster routes on them; the `{owner/repo}`
  hash tag keeps them in one slot).

  KEYS[1]          per-repo fencing counter (string, INCR)
  KEYS[2]          owner index of this operation (set of paths it holds)
  KEYS[3]          repo's set of operations that have an owner index
  KEYS[4 .. 3+N]   lock key per path, in sorted path order; value "<token> <since ms> <opId>"

  ARGV[1]          opId
  ARGV[2]          lease in ms
  ARGV[3 .. 2+N]   the paths, in the same order as their lock keys

  Returns
    {1, token}                     granted: each lock carries `token` and expires after the lease
    {0, path, opId, since, ...}    refused: every path held by another operation; nothing written

  A path the same operation already holds is granted again with the new token and a fresh
  lease; its `since` is kept so the board shows how long it has really been held.

  A lock is one string, not a hash: SET .. PX writes value and lease in one call, and the
  cost of these scripts is mostly the number of redis.call()s.
]]
local rcall = redis.call
local opId = ARGV[1]
local lease = ARGV[2]
local n = #KEYS - 3

local refused = {0}
local since = {}
for i = 1, n do
  local value = rcall("GET", KEYS[3 + i])
  if value then
    local heldSince, holder = string.match(value, "^%d+ (%d+) (.*)$")
    if holder ~= opId then
      refused[#refused + 1] = ARGV[2 + i]
      refused[#refused + 1] = holder
      refused[#refused + 1] = heldSince
    else
      since[i] = heldSince
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
  rcall("SET", KEYS[3 + i], token .. " " .. (since[i] or now) .. " " .. opId, "PX", lease)
end
rcall("SADD", KEYS[2], unpack(ARGV, 3, 2 + n))
-- The index outlives its locks by one more lease, so a renewal that comes too late can still
-- name what was lost; it is never shortened by a shorter grant.
local indexTtl = 2 * tonumber(lease)
if rcall("PTTL", KEYS[2]) < indexTtl then
  rcall("PEXPIRE", KEYS[2], indexTtl)
end
rcall("SADD", KEYS[3], opId)
return {1, token}
