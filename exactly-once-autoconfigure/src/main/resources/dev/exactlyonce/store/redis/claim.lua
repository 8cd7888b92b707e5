-- Claims one idempotency record atomically; the record is one hash, so one key and one slot.
-- KEYS[1] the record's key
-- ARGV[1] idempotency key, ARGV[2] owner, ARGV[3] fencing token (chosen by the caller; a hash already
-- holding this owner's token is the caller's own claim from a call that got no answer), ARGV[4] lease (ms),
-- ARGV[5] record TTL (ms)
-- Returns {status, now (ms), field, value, ...}: ACQUIRED with the record as written (the attempt it took
-- over in the previous* fields, its step journal, operators' audit and noted copies kept), HELD (a live claim)
-- or FINAL (completed, dead-lettered or waiting) with the record as it is; only ACQUIRED carries the step journal (ClaimDecision.needsWholeJournal:
-- a duplicate of a long task is answered without reading its steps).
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function ms(value)
	return string.format('%.0f', value)
end
local fields = readRecord(KEYS[1])

local function reply(status)
	return appendRecord({ status, ms(now) }, KEYS[1], status == 'ACQUIRED')
end

local ttl = tonumber(ARGV[5])
local leaseUntil = ms(now + tonumber(ARGV[4]))
if fields.state == 'IN_PROGRESS' and fields.token == ARGV[3] and fields.owner == ARGV[2] then
	redis.call('HSET', KEYS[1], 'startedAt', ms(now), 'leaseUntil', leaseUntil, 'expiresAt', ms(now + ttl))
	redis.call('PEXPIRE', KEYS[1], ttl)
	return reply('ACQUIRED')
end
if fields.state == 'COMPLETED' or fields.state == 'DEAD_LETTERED' or fields.state == 'WAITING' then
	return reply('FINAL')
end
if fields.state == 'IN_PROGRESS' and tonumber(fields.leaseUntil) > now then
	return reply('HELD')
end
-- everything but the step journal, the operators' audit and the noted copies belongs to the attempt before
redis.call('HDEL', KEYS[1], 'listener', 'completedAt', 'resultSummary', 'streamSequence', 'previousOwner',
	'previousStartedAt', 'previousAttempts', 'previousState', 'previousFailure', 'previousUnfinishedStep',
	'previousToken')
redis.call('HSET', KEYS[1], 'key', ARGV[1], 'owner', ARGV[2], 'token', ARGV[3], 'state', 'IN_PROGRESS',
	'attempts', (tonumber(fields.attempts) or 0) + 1, 'startedAt', ms(now), 'leaseUntil', leaseUntil,
	'expiresAt', ms(now + ttl))
-- a task resumed after a durable wait (reopened by RESUME, no attempt since) has no previous attempt
local resumed = fields.state == 'FAILED' and tonumber(fields.attempts) == 0 and fields.resultSummary
	and string.sub(fields.resultSummary, 1, 7) == 'RESUME '
if fields.state and not resumed then
	redis.call('HSET', KEYS[1], 'previousOwner', fields.owner, 'previousStartedAt', fields.startedAt,
		'previousAttempts', fields.attempts, 'previousState', fields.state, 'previousToken', fields.token)
	if fields.state == 'FAILED' and fields.resultSummary then
		redis.call('HSET', KEYS[1], 'previousFailure', fields.resultSummary)
	end
	local unfinished = lastUnfinishedStep(KEYS[1], fields)
	if unfinished then
		redis.call('HSET', KEYS[1], 'previousUnfinishedStep', unfinished)
	end
end
redis.call('PEXPIRE', KEYS[1], ttl)
return reply('ACQUIRED')
