--[[
  Records an operation's usage totals and returns how much each grew since the last call,
  so the global counters are incremented by the growth only: a retried job, or a job end
  recorded twice, never counts the same tokens again.

  KEYS[1]  the operation's metered hash (field -> last recorded total)

  ARGV[1]  TTL of KEYS[1] in seconds
  ARGV[2…] field, total, field, total, …

  Returns a flat list of field, growth for the fields that grew.
]]
local rcall = redis.call
local out = {}
for i = 2, #ARGV, 2 do
  local field = ARGV[i]
  local total = tonumber(ARGV[i + 1])
  local before = tonumber(rcall("HGET", KEYS[1], field) or "0")
  if total > before then
    rcall("HSET", KEYS[1], field, ARGV[i + 1])
    out[#out + 1] = field
    out[#out + 1] = tostring(total - before)
  end
end
rcall("EXPIRE", KEYS[1], ARGV[1])
return out
