--[[
  Takes, renews or releases the Slack notifier's lease (one posting notifier per deployment).
  KEYS[1] lease key
  ARGV[1] this notifier's token
  ARGV[2] lease length in ms; '0' releases the lease if this notifier holds it
  Returns 1 when this notifier holds the lease (or released it), 0 when another one holds it.
]]
local holder = redis.call('GET', KEYS[1])
if ARGV[2] == '0' then
  if holder == ARGV[1] then redis.call('DEL', KEYS[1]) end
  return 1
end
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
