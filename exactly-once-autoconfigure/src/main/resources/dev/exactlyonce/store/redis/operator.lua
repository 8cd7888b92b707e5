-- Records an operator's action on a key no attempt holds: a compare-and-set on the token the operator read.
-- KEYS[1] the record's key
-- ARGV[1] expected token, ARGV[2] record TTL (ms), ARGV[3] the states that allow the action (comma-separated),
-- ARGV[4] new token, ARGV[5] '1' to reopen the key (FAILED, no attempts counted), ARGV[6] '1' to empty the step
-- journal, ARGV[7] the action (a JSON object, appended to the audit), ARGV[8] the result summary of a reopened key,
-- ARGV[9] how many noted copies to keep (a reopened key's settled copy joins them)
-- Returns {'CHANGED'} when the record is gone, holds another token or its state does not allow the action,
-- else {'OK', now (ms), field, value, ...}.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function ms(value)
	return string.format('%.0f', value)
end
local held = redis.call('HMGET', KEYS[1], 'state', 'token', 'audit', 'expiresAt', 'streamSequence',
	'duplicateSequences')
if not held[1] or held[2] ~= ARGV[1] or tonumber(held[4]) <= now
		or not string.find(',' .. ARGV[3] .. ',', ',' .. held[1] .. ',', 1, true) then
	return { 'CHANGED' }
end
local audit = held[3] and cjson.decode(held[3]) or {}
audit[#audit + 1] = cjson.decode(ARGV[7])
local ttl = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'token', ARGV[4], 'audit', cjson.encode(audit), 'expiresAt', ms(now + ttl))
if ARGV[5] == '1' and tonumber(held[5] or '0') > 0
		and not string.find(',' .. (held[6] or '') .. ',', ',' .. held[5] .. ',', 1, true) then
	local sequences = {}
	for sequence in string.gmatch(held[6] or '', '[^,]+') do
		sequences[#sequences + 1] = sequence
	end
	sequences[#sequences + 1] = held[5]
	local first = math.max(1, #sequences - tonumber(ARGV[9]) + 1)
	redis.call('HSET', KEYS[1], 'duplicateSequences', table.concat(sequences, ',', first, #sequences))
end
if ARGV[5] == '1' then
	redis.call('HSET', KEYS[1], 'state', 'FAILED', 'attempts', '0', 'leaseUntil', ms(now), 'streamSequence', '0',
		'resultSummary', ARGV[8])
	redis.call('HDEL', KEYS[1], 'listener', 'completedAt')
end
if ARGV[6] == '1' then
	deleteJournal(KEYS[1])
end
redis.call('PEXPIRE', KEYS[1], ttl)
return appendRecord({ 'OK', ms(now) }, KEYS[1], true)
