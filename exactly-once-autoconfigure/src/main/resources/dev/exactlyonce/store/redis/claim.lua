-- Claims one idempotency record atomically; the record is one hash, so one key and one slot.
-- KEYS[1] the record's key
-- ARGV[1] idempotency key, ARGV[2] owner, ARGV[3] new fencing token, ARGV[4] lease (ms), ARGV[5] record TTL (ms)
-- Returns {status, now (ms), field, value, ...} with the hash as it was before the call;
-- status: ACQUIRED (written; the old hash, if any, is the previous attempt, whose step journal the claim keeps),
-- HELD (a live claim), FINAL.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function ms(value)
	return string.format('%.0f', value)
end
local current = redis.call('HGETALL', KEYS[1])
local fields = {}
for i = 1, #current, 2 do
	fields[current[i]] = current[i + 1]
end

local function reply(status)
	local result = { status, ms(now) }
	for i = 1, #current do
		result[#result + 1] = current[i]
	end
	return result
end

if fields.state == 'COMPLETED' or fields.state == 'DEAD_LETTERED' then
	return reply('FINAL')
end
if fields.state == 'IN_PROGRESS' and tonumber(fields.leaseUntil) > now then
	return reply('HELD')
end
local ttl = tonumber(ARGV[5])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'key', ARGV[1], 'owner', ARGV[2], 'token', ARGV[3], 'state', 'IN_PROGRESS',
	'attempts', (tonumber(fields.attempts) or 0) + 1, 'startedAt', ms(now), 'leaseUntil', ms(now + tonumber(ARGV[4])),
	'expiresAt', ms(now + ttl))
if fields.journal then
	redis.call('HSET', KEYS[1], 'journal', fields.journal)
end
redis.call('PEXPIRE', KEYS[1], ttl)
return reply('ACQUIRED')
