--[[
  Releases every lock the operation holds, and only those.

  KEYS[1]  owner index of the operation (set of paths)
  KEYS[2]  repo's set of operations that have an owner index

  ARGV[1]  lock key prefix; a path's lock key is ARGV[1] .. path
  ARGV[2]  opId
  ARGV[3]  release channel of the repo

  Lock keys are derived from the index members (same `{owner/repo}` hash tag, same slot);
  see renew-files-2.lua. A lock whose lease ran out and that another operation took since
  carries that operation's id, so the owner compare leaves it alone.

  Returns the list of paths released. When it is not empty, their JSON list is published
  on ARGV[3] so waiters re-check at once.
]]
local rcall = redis.call
local opId = ARGV[2]
local released = {}
local doomed = {KEYS[1]}
for _, path in ipairs(rcall("SMEMBERS", KEYS[1])) do
  local key = ARGV[1] .. path
  local value = rcall("GET", key)
  if value and string.match(value, "^%d+ %d+ (.*)$") == opId then
    doomed[#doomed + 1] = key
    released[#released + 1] = path
  end
end
rcall("DEL", unpack(doomed))
rcall("SREM", KEYS[2], opId)
if #released > 0 then
  rcall("PUBLISH", ARGV[3], cjson.encode(released))
end
return released
