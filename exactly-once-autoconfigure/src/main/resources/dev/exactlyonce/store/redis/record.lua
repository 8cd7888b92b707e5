-- Prepended to every script of the store: a record's hash holds the record's fields, and its step journal as
-- one field per step (step:<n> its entry, n in the order steps first started; stepAt:<name> its n; steps the
-- count; startedSteps the n's whose entry is STARTED, comma-separated), so that a step writes one entry whatever
-- the journal's length. The journal field of a hash written before holds the whole journal as a JSON array; the
-- first step journaled since moves it into step fields and leaves JOURNAL_MOVED there, which versions that read
-- only the array refuse as unreadable instead of resuming the task without its steps.
local JOURNAL_MOVED = '{"movedTo":"step fields"}'
local RECORD_FIELDS = { 'key', 'listener', 'owner', 'token', 'state', 'attempts', 'startedAt', 'leaseUntil',
	'streamSequence', 'completedAt', 'expiresAt', 'resultSummary', 'previousOwner', 'previousStartedAt',
	'previousAttempts', 'previousState', 'previousFailure', 'previousUnfinishedStep', 'previousToken', 'journal',
	'duplicateSequences', 'audit', 'steps', 'startedSteps' }

-- The record's fields as a table, read without its step entries.
local function readRecord(key)
	local values = redis.call('HMGET', key, unpack(RECORD_FIELDS))
	local fields = {}
	for i = 1, #RECORD_FIELDS do
		if values[i] then
			fields[RECORD_FIELDS[i]] = values[i]
		end
	end
	return fields
end

-- Appends the record's fields to a reply as field, value pairs; its step entries too when withSteps.
local function appendRecord(reply, key, withSteps)
	local fields = readRecord(key)
	for i = 1, #RECORD_FIELDS do
		local name = RECORD_FIELDS[i]
		if fields[name] and (withSteps or name ~= 'steps') then
			reply[#reply + 1] = name
			reply[#reply + 1] = fields[name]
		end
	end
	if withSteps and fields.steps then
		for n = 1, tonumber(fields.steps) do
			reply[#reply + 1] = 'step:' .. n
			reply[#reply + 1] = redis.call('HGET', key, 'step:' .. n)
		end
	end
	return reply
end

-- The name of the last step (in journal order) whose entry is STARTED: where an attempt that died was.
local function lastUnfinishedStep(key, fields)
	if fields.journal and string.sub(fields.journal, 1, 1) == '[' then
		local journal = cjson.decode(fields.journal)
		for i = #journal, 1, -1 do
			if journal[i].state == 'STARTED' then
				return journal[i].name
			end
		end
	end
	local last = nil
	for n in string.gmatch(fields.startedSteps or '', '[^,]+') do
		if not last or tonumber(n) > tonumber(last) then
			last = n
		end
	end
	if last then
		return cjson.decode(redis.call('HGET', key, 'step:' .. last)).name
	end
	return nil
end

-- Deletes the step journal: the journal field and every step field.
local function deleteJournal(key)
	redis.call('HDEL', key, 'journal', 'steps', 'startedSteps')
	local names = redis.call('HKEYS', key)
	local batch = {}
	for i = 1, #names do
		if string.sub(names[i], 1, 5) == 'step:' or string.sub(names[i], 1, 7) == 'stepAt:' then
			batch[#batch + 1] = names[i]
			if #batch == 1000 then
				redis.call('HDEL', key, unpack(batch))
				batch = {}
			end
		end
	end
	if #batch > 0 then
		redis.call('HDEL', key, unpack(batch))
	end
end

