--[[
  Extends every lock the operation still holds; forgets the ones it lost.

  KEYS[1]  owner index of the operation (set of paths)
  KEYS[2]  repo's set of operations that have an owner index

  ARGV[1]  lock key prefix; a path's lock key is ARGV[1] .. path
  ARGV[2]  opId
  ARGV[3]  lease in ms

  Lock keys are derived from the index members instead of being declared: the caller
  cannot know them without a round trip, and they share the `{owner/repo}` hash tag of
  KEYS[1], so they live in the same Cluster slot. A lock's value is
  "<token> <since ms> <opId>" (see acquire-files-n.lua).

  Returns {renewed, lost}: two lists of paths. A lock that expired, or expired and was
  taken by another operation, is lost for good; renewing never re-grants it, because
  someone else may have written in between. The index lives two leases, so a renewal later
  than that finds nothing at all (both lists empty); LeaseKeeper treats that as lost too.
]]
local rcall = redis.call
local opId = ARGV[2]
local lease = ARGV[3]
local renewed = {}
local lost = {}
for _, path in ipairs(rcall("SMEMBERS", KEYS[1])) do
  local key = ARGV[1] .. path
  local value = rcall("GET", key)
  if value and string.match(value, "^%d+ %d+ (.*)$") == opId then
    rcall("PEXPIRE", key, lease)
    renewed[#renewed + 1] = path
  else
    lost[#lost + 1] = path
  end
end
if #renewed > 0 then
  if #lost > 0 then
    rcall("SREM", KEYS[1], unpack(lost))
  end
  -- Twice the lease, as in acquire-files-n.lua: late renewals still learn what was lost.
  rcall("PEXPIRE", KEYS[1], 2 * tonumber(lease))
else
  rcall("DEL", KEYS[1])
  rcall("SREM", KEYS[2], opId)
end
return {renewed, lost}
