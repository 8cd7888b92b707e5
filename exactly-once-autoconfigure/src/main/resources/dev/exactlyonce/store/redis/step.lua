-- Journals one step of a held claim: a compare-and-set on the fencing token, then the step's entry replaces
-- the journal entry of the same name, or is appended. The journal is one JSON array in the record's hash.
-- KEYS[1] the record's key
-- ARGV[1] fencing token, ARGV[2] record TTL (ms), ARGV[3] the step's entry (a JSON object with a name)
-- Returns {'LOST'} when the token does not hold an IN_PROGRESS claim, else {'OK'}.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local held = redis.call('HMGET', KEYS[1], 'state', 'token', 'journal')
if held[1] ~= 'IN_PROGRESS' or held[2] ~= ARGV[1] then
	return { 'LOST' }
end
local journal = held[3] and cjson.decode(held[3]) or {}
local step = cjson.decode(ARGV[3])
local index = #journal + 1
for i = 1, #journal do
	if journal[i].name == step.name then
		index = i
		break
	end
end
journal[index] = step
local ttl = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'journal', cjson.encode(journal), 'expiresAt', string.format('%.0f', now + ttl))
redis.call('PEXPIRE', KEYS[1], ttl)
return { 'OK' }
