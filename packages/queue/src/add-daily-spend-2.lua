--[[
  Adds one model call's cost to today's spend of its repository and of all operations, in
  one step, and keeps both counters until the day is over (plus a margin for clock skew
  between processes).

  KEYS[1]  the repository's counter for the UTC day
  KEYS[2]  all operations' counter for the same day (same hash slot: the day is the tag)

  ARGV[1]  USD to add (a decimal string)
  ARGV[2]  TTL of both keys in seconds

  Returns { repository total, all-operations total } as decimal strings.
]]
local rcall = redis.call
local repo = rcall("INCRBYFLOAT", KEYS[1], ARGV[1])
local all = rcall("INCRBYFLOAT", KEYS[2], ARGV[1])
rcall("EXPIRE", KEYS[1], ARGV[2])
rcall("EXPIRE", KEYS[2], ARGV[2])
return { repo, all }
