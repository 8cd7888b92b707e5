-- Notes a duplicate copy on a final (COMPLETED or DEAD_LETTERED) record: appends its stream sequence to the
-- comma-separated duplicateSequences field, keeping the last ARGV[2]; the record's TTL and other fields are kept.
-- KEYS[1] the record's key
-- ARGV[1] the copy's stream sequence (decimal), ARGV[2] how many sequences to keep
-- Returns {'NONE'} when the key has no final record, else {'OK'}.
local held = redis.call('HMGET', KEYS[1], 'state', 'duplicateSequences')
if held[1] ~= 'COMPLETED' and held[1] ~= 'DEAD_LETTERED' then
	return { 'NONE' }
end
local sequences = {}
for sequence in string.gmatch(held[2] or '', '[^,]+') do
	if sequence == ARGV[1] then
		return { 'OK' }
	end
	sequences[#sequences + 1] = sequence
end
sequences[#sequences + 1] = ARGV[1]
local keep = tonumber(ARGV[2])
local first = math.max(1, #sequences - keep + 1)
redis.call('HSET', KEYS[1], 'duplicateSequences', table.concat(sequences, ',', first, #sequences))
return { 'OK' }
