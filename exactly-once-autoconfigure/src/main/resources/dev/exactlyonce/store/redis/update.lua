-- Changes a held claim (renew, complete, release): a compare-and-set on the fencing token.
-- KEYS[1] the record's key
-- ARGV[1] fencing token, ARGV[2] record TTL (ms), ARGV[3] a time field set to now + ARGV[4] (ms) (none when empty),
-- ARGV[5..] field, value pairs to set
-- Returns {'LOST'} when the token does not hold an IN_PROGRESS claim, else {'OK', now (ms), field, value, ...}
-- with the record's fields but not its step entries (a renewal's reply stays small however long the journal).
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function ms(value)
	return string.format('%.0f', value)
end
local held = redis.call('HMGET', KEYS[1], 'state', 'token')
if held[1] ~= 'IN_PROGRESS' or held[2] ~= ARGV[1] then
	return { 'LOST' }
end
local ttl = tonumber(ARGV[2])
if ARGV[3] ~= '' then
	redis.call('HSET', KEYS[1], ARGV[3], ms(now + tonumber(ARGV[4])))
end
redis.call('HSET', KEYS[1], 'expiresAt', ms(now + ttl), unpack(ARGV, 5))
redis.call('PEXPIRE', KEYS[1], ttl)
return appendRecord({ 'OK', ms(now) }, KEYS[1], false)
