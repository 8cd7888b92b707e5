-- Journals steps of a held claim: a compare-and-set on the fencing token, then each step's entry, in order,
-- replaces the entry of the same name, or is added after the others (see record.lua); all or none of them.
-- KEYS[1] the record's key
-- ARGV[1] fencing token, ARGV[2] record TTL (ms), then for each step three arguments: its entry (a JSON object),
-- its name, '1' when the entry is STARTED
-- Returns {'LOST'} when the token does not hold an IN_PROGRESS claim, else {'OK'}.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local held = redis.call('HMGET', KEYS[1], 'state', 'token', 'journal', 'steps', 'startedSteps')
if held[1] ~= 'IN_PROGRESS' or held[2] ~= ARGV[1] then
	return { 'LOST' }
end
local count = tonumber(held[4]) or 0
local started = {}
for position in string.gmatch(held[5] or '', '[^,]+') do
	started[position] = true
end
if not held[3] or string.sub(held[3], 1, 1) == '[' then
	local earlier = held[3] and cjson.decode(held[3]) or {}
	for i = 1, #earlier do
		count = count + 1
		redis.call('HSET', KEYS[1], 'step:' .. count, cjson.encode(earlier[i]), 'stepAt:' .. earlier[i].name, count)
		if earlier[i].state == 'STARTED' then
			started[tostring(count)] = true
		end
	end
	redis.call('HSET', KEYS[1], 'journal', JOURNAL_MOVED)
end
for i = 3, #ARGV, 3 do
	local n = redis.call('HGET', KEYS[1], 'stepAt:' .. ARGV[i + 1])
	if not n then
		count = count + 1
		n = tostring(count)
		redis.call('HSET', KEYS[1], 'stepAt:' .. ARGV[i + 1], n)
	end
	started[n] = (ARGV[i + 2] == '1') or nil
	redis.call('HSET', KEYS[1], 'step:' .. n, ARGV[i])
end
local positions = {}
for position in pairs(started) do
	positions[#positions + 1] = position
end
local ttl = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'steps', count, 'startedSteps', table.concat(positions, ','),
	'expiresAt', string.format('%.0f', now + ttl))
redis.call('PEXPIRE', KEYS[1], ttl)
return { 'OK' }
