--[[
  Writes a new version of an operation and appends its event, atomically. When the new
  status is final, every key of the operation (all in its `{id}` hash slot) starts to
  expire after the retention period; a status that is not final keeps them.
  KEYS[1] operation key (JSON)
  KEYS[2] the operation's event stream
  KEYS[3] the operation's artifacts hash (transcripts, kept diffs)
  KEYS[4] the operation's inbox
  ARGV[1] expected current version
  ARGV[2] new operation JSON (its version must be ARGV[1] + 1)
  ARGV[3] event type
  ARGV[4] event data JSON
  ARGV[5] event timestamp (ISO)
  ARGV[6] '1' when the new status is final, else '0'
  ARGV[7] retention in seconds
  Returns the event id, or -1 when the operation is missing, 0 when the version moved.
]]
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
local version = cjson.decode(current)['version']
if tostring(version) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
local id = redis.call('XADD', KEYS[2], '*', 'ts', ARGV[5], 'type', ARGV[3], 'data', ARGV[4])
for i = 1, 4 do
  if ARGV[6] == '1' then
    redis.call('EXPIRE', KEYS[i], ARGV[7])
  else
    redis.call('PERSIST', KEYS[i])
  end
end
return id
