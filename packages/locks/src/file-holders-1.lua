--[[
  Lists the live file locks of a repo, for the board.

  KEYS[1]  repo's set of operations that have an owner index

  ARGV[1]  owner index key prefix; an operation's index key is ARGV[1] .. opId
  ARGV[2]  lock key prefix; a path's lock key is ARGV[2] .. path

  Index and lock keys are derived (same `{owner/repo}` hash tag, same slot). Operations
  whose index expired (a dead worker, two leases ago) are dropped from KEYS[1] here.

  Returns a flat list: path, opId, token, since (ms), remaining lease (ms), ...
]]
local rcall = redis.call
local out = {}
for _, opId in ipairs(rcall("SMEMBERS", KEYS[1])) do
  local paths = rcall("SMEMBERS", ARGV[1] .. opId)
  if #paths == 0 then
    rcall("SREM", KEYS[1], opId)
  end
  for _, path in ipairs(paths) do
    local key = ARGV[2] .. path
    local value = rcall("GET", key)
    if value then
      local token, since, holder = string.match(value, "^(%d+) (%d+) (.*)$")
      if holder == opId then
        out[#out + 1] = path
        out[#out + 1] = opId
        out[#out + 1] = token
        out[#out + 1] = since
        out[#out + 1] = rcall("PTTL", key)
      end
    end
  end
end
return out
