--[[
  Writes a new version of a feature request when nobody wrote one since it was read.
  KEYS[1] feature request key (JSON)
  ARGV[1] expected current version
  ARGV[2] new JSON (its version must be ARGV[1] + 1)
  Returns 1 when written, -1 when the request is missing, 0 when the version moved.
]]
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if tostring(cjson.decode(current)['version']) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
