--[[
  Writes a new version of an operation and appends its event, atomically.
  KEYS[1] operation key (JSON)
  KEYS[2] the operation's event stream
  ARGV[1] expected current version
  ARGV[2] new operation JSON (its version must be ARGV[1] + 1)
  ARGV[3] event type
  ARGV[4] event data JSON
  ARGV[5] event timestamp (ISO)
  Returns the event id, or -1 when the operation is missing, 0 when the version moved.
]]
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
local version = cjson.decode(current)['version']
if tostring(version) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return redis.call('XADD', KEYS[2], '*', 'ts', ARGV[5], 'type', ARGV[3], 'data', ARGV[4])
