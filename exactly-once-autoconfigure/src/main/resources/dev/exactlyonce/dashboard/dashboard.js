'use strict';
// The exactly-once dashboard: reads the exactlyonce and exactlyonceops actuator endpoints (and the
// metrics endpoint when exposed) every 2 seconds; replay, discard, resubmit and signals go through the
// same endpoint operations, after a confirmation with a reason. Text from the server is only ever set
// as text, never as HTML. Each task and each dead letter has a link of its own:
// #task=<consumer>/<key> and #deadletter=<consumer>/<#>, each part URI-encoded (keys may hold '/').
(function () {
	const REFRESH_MS = 2000;
	const STATES = ['IN_PROGRESS', 'ABANDONED', 'FAILED', 'DEAD_LETTERED', 'COMPLETED', 'WAITING'];
	const OUTCOMES = ['processed', 'duplicate', 'in_progress_elsewhere', 'retried', 'dead_lettered',
		'already_dead_lettered', 'claim_lost', 'completion_unrecorded', 'completion_parked', 'completion_recovered',
		'suspended'];
	const WAITING_PAGE = 50;
	const REQUEST_TIMEOUT_MS = 8000;
	const TASK_PAGE = 20;
	const DEAD_PAGE = 50;
	const SHORT_TEXT = 160;
	const state = { actuator: '/actuator', consumers: [], overview: null, listed: null, watched: null, processed: [],
		lastProcessed: null, busy: false, pending: null, lastGood: null, deadFrom: {}, linkedDead: null, metrics: undefined,
		expanded: new Set() };

	const $ = (id) => document.getElementById(id);

	function el(tag, text, className) {
		const node = document.createElement(tag);
		if (text !== undefined && text !== null) {
			node.textContent = String(text);
		}
		if (className) {
			node.className = className;
		}
		return node;
	}

	function link(href, text, className) {
		const anchor = el('a', text, className);
		anchor.href = href;
		return anchor;
	}

	function taskHref(consumer, key) {
		return '#task=' + encodeURIComponent(consumer) + '/' + encodeURIComponent(key);
	}

	function deadLetterHref(consumer, sequence) {
		return '#deadletter=' + encodeURIComponent(consumer) + '/' + sequence;
	}

	function taskLink(consumer, key) {
		return link(taskHref(consumer, key), key, 'key');
	}

	// A text longer than SHORT_TEXT shows its start (cut at a word) and opens whole on a click; it stays
	// open across refreshes.
	function longText(tag, text, className) {
		if (text.length <= SHORT_TEXT) {
			return el(tag, text, className);
		}
		const cut = text.lastIndexOf(' ', SHORT_TEXT);
		const details = el('details', null, 'long ' + (className || ''));
		const summary = el('summary');
		summary.append(el('span', text.slice(0, (cut > SHORT_TEXT / 2) ? cut : SHORT_TEXT) + ' …', 'start'),
			el('span', 'show all ' + text.length + ' characters', 'more'));
		details.append(summary, el(tag, text, className));
		details.open = state.expanded.has(text);
		details.addEventListener('toggle', () => {
			if (details.open) {
				state.expanded.add(text);
			}
			else {
				state.expanded.delete(text);
			}
		});
		return details;
	}

	// The target of the page's address: { kind: 'task' | 'deadletter', consumer, id }, or null.
	function linked() {
		const match = /^#(task|deadletter)=([^/]*)\/(.*)$/.exec(window.location.hash);
		if (!match) {
			return null;
		}
		try {
			return { kind: match[1], consumer: decodeURIComponent(match[2]), id: decodeURIComponent(match[3]) };
		}
		catch (malformed) {
			return null;
		}
	}

	function openLinked() {
		const target = linked();
		if (!target) {
			return;
		}
		if (target.kind === 'task') {
			state.watched = { consumer: target.consumer, key: target.id };
			$('find-key').value = target.id;
			$('find-consumer').value = target.consumer;
			renderWatched().then(() => $('task-title').scrollIntoView());
		}
		else if (/^[0-9]+$/.test(target.id)) {
			state.deadFrom[target.consumer] = Number(target.id);
			state.linkedDead = { consumer: target.consumer, sequence: Number(target.id), shown: false };
			refresh();
		}
	}

	function badge(status) {
		return el('span', status.replace('_', ' ').toLowerCase(), 'status status-' + status);
	}

	function fill(tbody, rows, columns, emptyText, rowId) {
		tbody.replaceChildren();
		if (rows.length === 0) {
			const cell = el('td', emptyText, 'empty');
			cell.colSpan = columns;
			const tr = el('tr');
			tr.append(cell);
			tbody.append(tr);
			return;
		}
		rows.forEach((cells, index) => {
			const tr = el('tr');
			if (rowId) {
				tr.id = rowId(index);
			}
			cells.forEach((cell) => {
				const td = el('td');
				if (cell instanceof Node) {
					td.append(cell);
				}
				else {
					td.textContent = (cell === null || cell === undefined) ? '—' : String(cell);
					if (typeof cell === 'number') {
						td.className = 'num';
					}
				}
				tr.append(td);
			});
			tbody.append(tr);
		});
	}

	// Spring Security's token for single-page apps (csrf.spa(): cookie XSRF-TOKEN, header X-XSRF-TOKEN);
	// another site cannot read the cookie, so it cannot forge a write.
	function csrfHeaders() {
		const match = document.cookie.match(/(?:^|;\s*)XSRF-TOKEN=([^;]*)/);
		return match ? { 'X-XSRF-TOKEN': decodeURIComponent(match[1]) } : {};
	}

	async function api(path, options) {
		const method = (options && options.method) || 'GET';
		const headers = Object.assign({ 'Accept': 'application/json' }, method === 'GET' ? {} : csrfHeaders(),
			options && options.headers);
		const abort = new AbortController();
		const timer = setTimeout(() => abort.abort(), REQUEST_TIMEOUT_MS);
		let response;
		try {
			response = await fetch(state.actuator + path, Object.assign({}, options, { headers, signal: abort.signal }));
		}
		catch (failure) {
			const error = new Error(abort.signal.aborted
				? 'the endpoint did not answer within ' + (REQUEST_TIMEOUT_MS / 1000) + ' s (NATS or the store may be down or slow)'
				: 'the application did not answer (' + failure.message + ')');
			error.status = 0;
			throw error;
		}
		finally {
			clearTimeout(timer);
		}
		const text = await response.text();
		const json = (response.headers.get('Content-Type') || '').includes('json');
		let body = null;
		if (text && json) {
			body = JSON.parse(text);
		}
		if (!response.ok) {
			// the endpoint's refusals are {"error": "..."}; the server's own error pages also carry a status
			let reason = (body && body.error && !body.status) ? body.error
				: response.status + ' ' + ((body && body.error) || response.statusText || 'error');
			if (response.status === 405) {
				reason = 'This application does not allow writes through the endpoint (management.endpoint.exactlyonceops.access=unrestricted): ' + reason;
			}
			else if (response.status === 403) {
				reason += ': your user may not do this here (or the security setup refuses the page\'s CSRF token: see docs/operating.md)';
			}
			else if (!json && text) {
				reason += ' (the server answered with a page, not the endpoint)';
			}
			const error = new Error(reason);
			error.status = response.status;
			throw error;
		}
		if (text && !json) {
			throw new Error('The server answered ' + path + ' with something that is not the endpoint\'s JSON');
		}
		return body;
	}

	function say(text, ok) {
		const message = $('message');
		message.textContent = text;
		message.className = ok ? 'ok' : 'error';
		message.hidden = false;
	}

	function time(iso) {
		return iso ? new Date(iso).toLocaleString() : '—';
	}

	// The durable waits in a task's journal: entries whose result is a wait's JSON
	// ({"wait":"SIGNAL"|"SLEEP","until":...} and, once ended, "outcome", "signalId", "payload").
	function waitsOf(task) {
		return (task.steps || []).map((step) => {
			let result = null;
			try {
				result = step.result ? JSON.parse(step.result) : null;
			}
			catch (notJson) {
				return null;
			}
			if (!result || typeof result !== 'object' || !result.wait || !result.until) {
				return null;
			}
			return { name: step.name, kind: result.wait, until: result.until, since: step.startedAt, state: step.state,
				outcome: result.outcome || null, signalId: result.signalId || null, decisions: result.decisions || null };
		}).filter((wait) => wait !== null);
	}

	// The wait a WAITING task is suspended at: its last wait not ended yet.
	function currentWait(task) {
		const open = waitsOf(task).filter((wait) => wait.state === 'STARTED');
		return open.length ? open[open.length - 1] : null;
	}

	// The children a wait (kind CHILD) is for: awaitChild's is named '<child>.result'; an ended awaitAll's
	// decisions name its children; an open awaitAll is taken to wait for every child the task started.
	function awaitedChildren(task, wait) {
		const suffix = '.result';
		const children = task.children || [];
		const named = children.filter((child) => child.name + suffix === wait.name);
		if (named.length) {
			return named;
		}
		return wait.decisions ? children.filter((child) => (child.name + suffix) in wait.decisions) : children;
	}

	function describeWait(wait, task) {
		if (wait.kind === 'CHILD') {
			const children = awaitedChildren(task, wait);
			return (children.length === 1 ? 'child ' : 'children ') + (children.map((child) => child.name).join(', ') || wait.name);
		}
		return (wait.kind === 'SIGNAL' ? 'signal ' : 'sleep ') + wait.name;
	}

	// A child task: a link to it (when this application holds its record), its status and result.
	function childEntry(child) {
		const entry = el('li');
		entry.append(child.name + ': ', child.consumer ? taskLink(child.consumer, child.key) : el('span', child.key, 'key'), ' ');
		if (child.status) {
			entry.append(badge(child.status));
			if (child.resultSummary) {
				entry.append(' ', longText('span', child.resultSummary));
			}
		}
		else {
			entry.append(el('span', 'no record here yet (not claimed, expired, or run by another application)', 'empty'));
		}
		return entry;
	}

	function childList(children) {
		const list = el('ul', null, 'children');
		list.append(...children.map(childEntry));
		return list;
	}

	function currentStep(task) {
		const running = (task.steps || []).filter((step) => step.state === 'STARTED');
		return running.length ? running[running.length - 1].name : '—';
	}

	async function refresh() {
		if (state.busy) {
			return;
		}
		state.busy = true;
		try {
			const [overview, exactlyOnce] = await Promise.all([api('/exactlyonceops'), api('/exactlyonce')]);
			state.overview = overview;
			state.consumers = Object.keys(overview.consumers);
			renderSummary(overview, exactlyOnce);
			renderListeners(exactlyOnce);
			renderLimits(exactlyOnce);
			renderStates(overview);
			fillConsumerChoice();
			await Promise.all([renderInFlight(overview), renderWaiting(overview), renderDeadLetters(overview), renderMonthly(),
				renderListed(), renderWatched(), renderCharts()]);
			state.lastGood = new Date();
			document.body.classList.remove('stale');
		}
		catch (error) {
			document.body.classList.add('stale');
			$('summary').textContent = (state.lastGood ? 'Showing what was read at ' + state.lastGood.toLocaleTimeString()
				+ ': the last refresh failed: ' : 'Nothing read yet: ') + whyUnreadable(error);
		}
		finally {
			state.busy = false;
		}
	}

	function whyUnreadable(error) {
		if (error.status === 404) {
			return 'the endpoint is not there (' + error.message + '). Expose it: '
				+ 'management.endpoints.web.exposure.include=exactlyonce,exactlyonceops, with spring-boot-starter-actuator on the classpath';
		}
		return error.message;
	}

	function renderSummary(overview, exactlyOnce) {
		const dead = Object.values(overview.consumers).reduce((sum, c) => sum + (c.deadLetters || 0), 0);
		$('summary').textContent = 'Store: ' + overview.store + ' · ' + exactlyOnce.listeners.length + ' listener(s) · '
			+ dead + ' dead letter(s) · updated ' + new Date().toLocaleTimeString();
		$('payload-note').textContent = overview.showPayloads ? 'Payloads are shown (exactlyonce.operations.show-payloads=true).'
			: 'Payloads are hidden: they can hold personal data (exactlyonce.operations.show-payloads).';
	}

	function renderListeners(exactlyOnce) {
		fill($('listeners').tBodies[0], exactlyOnce.listeners.map((listener) => {
			const consumer = exactlyOnce.consumers[listener.consumer] || {};
			return [listener.consumer, listener.stream, listener.running ? 'yes' : 'no', listener.inFlight,
				(consumer.pending !== undefined && consumer.pending !== null) ? consumer.pending : null];
		}), 5, 'No listeners in this application.');
	}

	// A limit's row, then a row for each of its busiest keys; in use is per key, against the limit's capacity.
	function renderLimits(exactlyOnce) {
		const limits = exactlyOnce.limits || { declared: false, usage: [] };
		const rows = [];
		if (limits.error) {
			rows.push([el('span', 'The limits could not be read: ' + limits.error, 'empty'), null, null, null, null, null]);
		}
		limits.usage.forEach((limit) => {
			const window = limit.rate > 0 ? ' per ' + String(limit.per).replace(/^PT/, '').toLowerCase() : '';
			const capacity = [];
			if (limit.concurrency > 0) {
				capacity.push(limit.holders + ' holding (' + limit.concurrency + ' per key)');
			}
			if (limit.rate > 0) {
				capacity.push(limit.started + ' started (' + limit.rate + window + ' per key)');
			}
			rows.push([el('strong', limit.name), limit.kind, 'all keys (' + limit.keys + ')', capacity.join(' · '),
				limit.waiting, age(limit.oldestWaitingSeconds)]);
			limit.busiestKeys.forEach((key) => {
				const inUse = [];
				if (limit.concurrency > 0) {
					inUse.push(key.holders + ' / ' + limit.concurrency);
				}
				if (limit.rate > 0) {
					inUse.push(key.started + ' / ' + limit.rate + window);
				}
				const name = !key.keyKept ? el('span', key.entry + ' (key ' + key.key + ')', 'empty')
					: el('span', key.key === '' ? '(one key for the whole limit)' : key.key, 'key');
				name.title = key.entry;
				rows.push(['', '', name, inUse.join(' · '), key.waiting + ' / ' + limit.maxWaiting,
					age(key.oldestWaitingSeconds)]);
			});
		});
		fill($('limits').tBodies[0], rows, 6, limits.declared ? 'No limit is in use.'
			: 'No limit is declared (exactlyonce.limits.<name>.concurrency or .rate).');
	}

	function age(seconds) {
		if (seconds === null || seconds === undefined) {
			return '—';
		}
		if (seconds < 60) {
			return seconds + ' s';
		}
		if (seconds < 3600) {
			return Math.floor(seconds / 60) + ' min ' + (seconds % 60) + ' s';
		}
		return Math.floor(seconds / 3600) + ' h ' + Math.floor((seconds % 3600) / 60) + ' min';
	}

	async function renderInFlight(overview) {
		const rows = [];
		for (const consumer of Object.keys(overview.consumers)) {
			if (!overview.listable) {
				continue;
			}
			const page = await api('/exactlyonceops/' + encodeURIComponent(consumer) + '/tasks?state=IN_PROGRESS&size=20');
			page.tasks.forEach((task) => rows.push([consumer, taskLink(consumer, task.key), task.owner, task.attempts,
				task.leaseLeftSeconds + ' s', currentStep(task)]));
		}
		fill($('in-flight').tBodies[0], rows, 6, overview.listable ? 'Nothing is running.'
			: 'The store cannot list its records: find tasks by key below.');
	}

	function renderStates(overview) {
		fill($('states').tBodies[0], Object.entries(overview.consumers).map(([consumer, info]) => [consumer].concat(
			STATES.map((status) => {
				if (!info.tasks) {
					return 'n/a';
				}
				const button = el('button', info.tasks[status], 'link');
				button.setAttribute('aria-label', 'List ' + status.toLowerCase().replace('_', ' ') + ' tasks of ' + consumer);
				button.addEventListener('click', () => {
					state.listed = { consumer, status, page: 0 };
					renderListed();
				});
				return button;
			}))), 7, 'No consumers declared.');
	}

	async function renderWaiting(overview) {
		const rows = [];
		for (const consumer of Object.keys(overview.consumers)) {
			if (!overview.listable) {
				continue;
			}
			const page = await api('/exactlyonceops/' + encodeURIComponent(consumer) + '/tasks?state=WAITING&size=' + WAITING_PAGE);
			const waiting = page.tasks.map((task) => ({ task, wait: currentWait(task) }));
			waiting.sort((a, b) => String(a.wait ? a.wait.since : '').localeCompare(String(b.wait ? b.wait.since : '')));
			waiting.forEach(({ task, wait }) => rows.push([consumer, taskLink(consumer, task.key),
				wait ? describeWait(wait, task) : task.resultSummary, wait ? time(wait.since) : null, wait ? time(wait.until) : null,
				wait && wait.kind === 'SIGNAL' ? signalButtons(consumer, task.key, wait.name) : '—']));
			if (page.total > page.tasks.length) {
				rows.push([consumer, el('span', (page.total - page.tasks.length) + ' more waiting: list them under Tasks by state',
					'empty'), null, null, null, null]);
			}
		}
		fill($('waiting').tBodies[0], rows, 6, overview.listable ? 'No task is waiting.'
			: 'The store cannot list its records: find tasks by key below.');
	}

	// Approve, Reject and Signal for a task's signal wait.
	function signalButtons(consumer, key, name) {
		const buttons = el('span');
		const answer = (approved) => {
			const button = el('button', approved ? 'Approve' : 'Reject', approved ? 'primary' : 'danger');
			button.setAttribute('aria-label', (approved ? 'Approve' : 'Reject') + ' task ' + key + ' (signal ' + name + ')');
			button.addEventListener('click', () => confirmAction({
				title: (approved ? 'Approve' : 'Reject') + ' task ' + key + '?',
				text: 'Sends signal ' + name + ' with {"approved": ' + approved + ', "by": "' + user() + '", "reason": <your reason>}.',
				button: approved ? 'Approve' : 'Reject',
				run: (reason) => sendSignal(consumer, key, name, JSON.stringify({ approved, by: user(), reason }), reason),
				describe: signalDone, consumer, key
			}));
			return button;
		};
		buttons.append(answer(true), ' ', answer(false), ' ', signalButton(consumer, key, name));
		return buttons;
	}

	function signalButton(consumer, key, name) {
		const button = el('button', 'Signal…');
		button.setAttribute('aria-label', 'Send a signal to task ' + key);
		button.addEventListener('click', () => confirmAction({
			title: 'Send a signal to task ' + key + '?',
			text: 'Its wait for the signal of this name returns the payload (a signal for a wait it has not reached yet is kept for it).',
			button: 'Send',
			signal: { name: name || '', payload: '' },
			run: (reason, signal) => sendSignal(consumer, key, signal.name, signal.payload, reason),
			describe: signalDone, consumer, key
		}));
		return button;
	}

	function user() {
		return (state.overview && state.overview.user) || 'anonymous';
	}

	// One id per signal the page sends: sending it again (after a timeout) is then a DUPLICATE, never a second signal.
	function signalId() {
		return 'dashboard-' + Date.now().toString(36) + '-' + Math.random().toString(36).slice(2, 10);
	}

	function sendSignal(consumer, key, name, payload, reason) {
		return api('/exactlyonceops/' + encodeURIComponent(consumer) + '/tasks', { method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ action: 'signal', key, name, payload, id: signalId(), reason }) });
	}

	function signalDone(answer) {
		return 'signal ' + answer.signal + ' to task ' + answer.key + ': ' + answer.outcome.toLowerCase().replace('_', ' ')
			+ ' (' + answer.meaning + ').';
	}

	async function renderListed() {
		const listed = state.listed;
		if (!listed) {
			return;
		}
		const page = await api('/exactlyonceops/' + encodeURIComponent(listed.consumer) + '/tasks?state=' + listed.status
			+ '&page=' + listed.page + '&size=' + TASK_PAGE);
		$('state-list').hidden = false;
		const first = listed.page * TASK_PAGE;
		$('state-list-title').textContent = listed.status.replace('_', ' ').toLowerCase() + ' tasks of ' + listed.consumer
			+ ': ' + (page.tasks.length ? (first + 1) + '–' + (first + page.tasks.length) : 'none') + ' of ' + page.total
			+ ', latest attempt first';
		pager($('state-list-pages'), listed.page > 0, first + page.tasks.length < page.total, (step) => {
			listed.page += step;
			renderListed();
		}, 'tasks');
		const resubmittable = state.overview && state.overview.consumers[listed.consumer]
			&& state.overview.consumers[listed.consumer].resubmit === true;
		fill($('state-list').querySelector('tbody'), page.tasks.map((task) => {
			let action = '—';
			if ((task.status === 'COMPLETED' || task.status === 'FAILED') && resubmittable) {
				action = el('button', 'Resubmit');
				action.setAttribute('aria-label', 'Resubmit task ' + task.key);
				action.addEventListener('click', () => confirmAction({
					title: 'Resubmit task ' + task.key + '?',
					text: 'It runs once more, from its first step, under the same key. Its message must still be on its '
						+ 'stream (otherwise resubmit it from the service that publishes it).',
					button: 'Resubmit',
					run: (reason) => api('/exactlyonceops/' + encodeURIComponent(listed.consumer) + '/tasks',
						{ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ action: 'resubmit', key: task.key, reason }) }),
					consumer: listed.consumer, key: task.key
				}));
			}
			return [taskLink(listed.consumer, task.key), task.attempts, time(task.startedAt),
				task.resultSummary ? longText('span', task.resultSummary) : null, action];
		}), 5, 'None.');
	}

	// Previous and next buttons of a paged list; step is -1 or +1.
	function pager(container, hasPrevious, hasNext, go, what) {
		const previous = el('button', 'Previous ' + what);
		previous.disabled = !hasPrevious;
		previous.addEventListener('click', () => go(-1));
		const next = el('button', 'Next ' + what);
		next.disabled = !hasNext;
		next.addEventListener('click', () => go(1));
		container.replaceChildren(previous, ' ', next);
	}

	async function renderDeadLetters(overview) {
		const rows = [];
		const ids = [];
		const pages = [];
		for (const [consumer, info] of Object.entries(overview.consumers)) {
			const from = state.deadFrom[consumer] || 1;
			const letters = await api('/exactlyonceops/' + encodeURIComponent(consumer) + '/deadletters?from=' + from
				+ '&size=' + DEAD_PAGE);
			letters.forEach((letter) => {
				rows.push(deadLetterRow(consumer, letter, overview.showPayloads));
				ids.push('dead-' + consumer + '-' + letter.sequence);
			});
			if (from > 1 || letters.length === DEAD_PAGE) {
				pages.push(deadLetterPager(consumer, from, letters, info.deadLetters));
			}
		}
		fill($('dead-letters').tBodies[0], rows, 8, 'No dead letters.', (index) => ids[index]);
		$('dead-pages').replaceChildren(...pages);
		showLinkedDeadLetter();
	}

	// Marks the dead letter the page's address names and scrolls to it once.
	function showLinkedDeadLetter() {
		const wanted = state.linkedDead;
		if (!wanted) {
			return;
		}
		const row = document.getElementById('dead-' + wanted.consumer + '-' + wanted.sequence);
		if (!row) {
			if (!wanted.shown) {
				say('No dead letter #' + wanted.sequence + ' of ' + wanted.consumer + ' (replayed or discarded since?).', false);
			}
			state.linkedDead = null;
			return;
		}
		row.classList.add('linked');
		if (!wanted.shown) {
			wanted.shown = true;
			row.scrollIntoView({ block: 'center' });
		}
	}

	function deadLetterPager(consumer, from, letters, total) {
		const line = el('p', consumer + ': dead letters from #' + from + ' (' + letters.length + ' shown of '
			+ (total === null || total === undefined ? '?' : total) + ') ');
		const first = el('button', 'First ' + DEAD_PAGE);
		first.disabled = from <= 1;
		first.addEventListener('click', () => {
			state.deadFrom[consumer] = 1;
			refresh();
		});
		const next = el('button', 'Next ' + DEAD_PAGE);
		next.disabled = letters.length < DEAD_PAGE;
		next.addEventListener('click', () => {
			state.deadFrom[consumer] = letters[letters.length - 1].sequence + 1;
			refresh();
		});
		line.append(first, ' ', next);
		return line;
	}

	// Finds a dead letter by its # (sequence; what is all digits, unless keyOnly) or by its task's key,
	// reading pages of 500, in the given consumers (all by default).
	async function findDeadLetter(wanted, consumers, keyOnly) {
		for (const consumer of (consumers || state.consumers)) {
			if (!keyOnly && /^[0-9]+$/.test(wanted)) {
				const letters = await api('/exactlyonceops/' + encodeURIComponent(consumer) + '/deadletters?from=' + wanted + '&size=1');
				if (letters.length && String(letters[0].sequence) === wanted) {
					return { consumer, letter: letters[0] };
				}
				continue;
			}
			for (let from = 1; ;) {
				const letters = await api('/exactlyonceops/' + encodeURIComponent(consumer) + '/deadletters?from=' + from + '&size=500');
				const found = letters.find((letter) => letter.key === wanted);
				if (found) {
					return { consumer, letter: found };
				}
				if (letters.length < 500) {
					break;
				}
				from = letters[letters.length - 1].sequence + 1;
			}
		}
		return null;
	}

	function deadLetterRow(consumer, letter, showPayloads) {
		const actions = el('span');
		const replay = el('button', 'Replay', 'primary');
		replay.setAttribute('aria-label', 'Replay dead letter ' + letter.sequence + ' (task ' + letter.key + ')');
		replay.disabled = !letter.key;
		replay.addEventListener('click', () => confirmAction({
			title: 'Replay task ' + letter.key + '?',
			text: 'Its payload is published again to ' + letter.originalSubject + ' and runs once (steps already done are not repeated). Do this after the cause is fixed.',
			button: 'Replay',
			run: (reason) => api('/exactlyonceops/' + encodeURIComponent(consumer) + '/deadletters/' + letter.sequence,
				{ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ action: 'replay', reason }) }),
			consumer, key: letter.key
		}));
		const discard = el('button', 'Discard', 'danger');
		discard.setAttribute('aria-label', 'Discard dead letter ' + letter.sequence + ' (task ' + letter.key + ')');
		discard.addEventListener('click', () => confirmAction({
			title: 'Discard task ' + letter.key + '?',
			text: 'The dead letter is deleted for good; the task stays dead-lettered and never runs.',
			button: 'Discard',
			run: (reason) => api('/exactlyonceops/' + encodeURIComponent(consumer) + '/deadletters/' + letter.sequence
				+ '?reason=' + encodeURIComponent(reason), { method: 'DELETE' }),
			consumer, key: letter.key
		}));
		actions.append(replay, ' ', discard);
		const payload = showPayloads ? el('span', letter.payload, 'payload') : 'hidden';
		const why = el('span', null, 'why');
		why.append(longText('span', letter.reason));
		if (letter.exception) {
			why.append(longText('code', failure(letter)));
		}
		const number = link(deadLetterHref(consumer, letter.sequence), letter.sequence);
		number.setAttribute('aria-label', 'Link to dead letter ' + letter.sequence);
		return [number, consumer, letter.key === null ? el('span', 'no key', 'empty') : taskLink(consumer, letter.key),
			why, letter.deliveries, time(letter.at), payload, actions];
	}

	function failure(letter) {
		return letter.exception + (letter.exceptionMessage ? ': ' + letter.exceptionMessage : '');
	}

	async function renderMonthly() {
		const rows = await api('/exactlyonceops/monthly');
		fill($('monthly').tBodies[0], rows.map((row) => [row.month, row.published, row.completed,
			row.duplicatesCaughtByStreamDedup, row.duplicatesCaughtByIdempotencyCheck, row.duplicatesReachedExecution,
			(row.netDuplicationRate * 100).toFixed(2) + ' %']), 7, 'Nothing counted yet.');
	}

	// Whether the metrics endpoint is exposed: asked once; without it the charts are hidden and never asked for.
	async function metricsExposed() {
		if (state.metrics === undefined) {
			try {
				await api('/metrics');
				state.metrics = true;
			}
			catch (error) {
				if (error.status !== 404) {
					throw error;
				}
				state.metrics = false;
				$('charts-body').hidden = true;
				$('charts-note').textContent = 'The metrics endpoint is not exposed, so there are no charts: add metrics to '
					+ 'management.endpoints.web.exposure.include to see them.';
			}
		}
		return state.metrics;
	}

	// A delivery outcome's count; a meter or tag not registered yet (nothing had that outcome) counts 0.
	async function outcomeCount(outcome) {
		try {
			const metric = await api('/metrics/exactlyonce.messages?tag=outcome:' + outcome);
			return metric.measurements[0].value;
		}
		catch (error) {
			if (error.status === 404) {
				return 0;
			}
			throw error;
		}
	}

	async function renderCharts() {
		let counts;
		try {
			if (!await metricsExposed()) {
				return;
			}
			counts = await Promise.all(OUTCOMES.map(outcomeCount));
		}
		catch (error) {
			$('charts-note').textContent = 'The metrics could not be read: ' + error.message;
			return;
		}
		$('charts-note').textContent = '';
		const processed = counts[0];
		if (state.lastProcessed !== null) {
			state.processed.push(Math.max(0, processed - state.lastProcessed));
			state.processed = state.processed.slice(-60);
		}
		state.lastProcessed = processed;
		const svg = $('throughput');
		svg.replaceChildren();
		const max = Math.max(1, ...state.processed);
		state.processed.forEach((value, index) => {
			const bar = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
			const height = 110 * value / max;
			bar.setAttribute('x', String(index * 10));
			bar.setAttribute('y', String(115 - height));
			bar.setAttribute('width', '8');
			bar.setAttribute('height', String(height));
			svg.append(bar);
		});
		const total = Math.max(1, counts.reduce((a, b) => a + b, 0));
		fill($('outcomes').tBodies[0], OUTCOMES.map((outcome, index) => {
			const bar = el('span', null, 'bar');
			bar.style.width = (12 * counts[index] / total) + 'rem';
			return [outcome.replaceAll('_', ' '), counts[index], bar];
		}), 3, '');
	}

	function fillConsumerChoice() {
		const select = $('find-consumer');
		if (select.options.length === state.consumers.length) {
			return;
		}
		select.replaceChildren(...state.consumers.map((consumer) => el('option', consumer)));
		if (state.watched) {
			select.value = state.watched.consumer;
		}
	}

	async function renderWatched() {
		const watched = state.watched;
		const detail = $('task-detail');
		if (!watched) {
			return;
		}
		let task;
		try {
			task = await api('/exactlyonceops/' + encodeURIComponent(watched.consumer) + '/tasks?key=' + encodeURIComponent(watched.key));
		}
		catch (error) {
			detail.replaceChildren(el('p', error.status === 404 ? 'No record of task ' + watched.key + ' of ' + watched.consumer
				+ ' (never claimed, or expired).' : error.message, 'empty'));
			return;
		}
		const list = el('dl', null, 'task');
		const add = (term, value) => {
			list.append(el('dt', term));
			const dd = el('dd');
			dd.append(value instanceof Node ? value : document.createTextNode(value === null || value === undefined ? '—' : String(value)));
			list.append(dd);
		};
		add('Task', task.key);
		add('Consumer', task.consumer);
		add('Status', badge(task.status));
		add('Owner', task.owner);
		add('Attempts', task.attempts);
		add('Lease left', task.status === 'IN_PROGRESS' ? task.leaseLeftSeconds + ' s' : '—');
		add('Stream sequence', task.streamSequence || '—');
		add('Link', link(taskHref(task.consumer, task.key), 'link to this task'));
		if (task.parent) {
			const parent = el('span');
			parent.append(taskLink(task.parent.consumer, task.parent.key), ' of ' + task.parent.consumer + ' (its child '
				+ task.parent.childName + ')');
			add('Parent', parent);
		}
		if (task.children && task.children.length) {
			add('Children', childList(task.children));
		}
		add('Result or failure', task.resultSummary ? longText('span', task.resultSummary) : null);
		if (task.status === 'DEAD_LETTERED') {
			add('Dead letter', await deadLetterOf(watched));
		}
		add('Steps', (task.steps || []).map((step) => step.name + ' ' + step.state.toLowerCase()).join(', ') || '—');
		const waits = waitsOf(task);
		if (waits.length) {
			add('Waits', waits.map((wait) => describeWait(wait, task) + ' since ' + time(wait.since) + ', until ' + time(wait.until) + ': '
				+ (wait.outcome ? wait.outcome.toLowerCase().replace('_', ' ') + (wait.signalId ? ' (signal id ' + wait.signalId + ')' : '')
					: 'waiting')).join('; '));
		}
		const open = task.status === 'WAITING' ? currentWait(task) : null;
		if (open && open.kind === 'CHILD') {
			const running = awaitedChildren(task, open).filter((child) => child.status !== 'COMPLETED');
			add('Waits for', running.length ? childList(running) : 'none: every child it waits for completed, it resumes');
		}
		else if (open && open.kind === 'SIGNAL') {
			add('Answer the wait', signalButtons(task.consumer, task.key, open.name));
		}
		else if (task.status !== 'COMPLETED' && task.status !== 'DEAD_LETTERED') {
			add('Signal', signalButton(task.consumer, task.key, ''));
		}
		// a task resumed after a durable wait has no previous attempt: it was not retried (its audit has the RESUME)
		const previous = task.previousAttempt;
		add('Attempt before', previous ? (previous.state === 'IN_PROGRESS' ? 'abandoned' : 'failed')
			+ ', by ' + previous.owner
			+ ' at ' + time(previous.startedAt) + (previous.failure ? ': ' + previous.failure : '')
			+ (previous.unfinishedStep ? ' (left step ' + previous.unfinishedStep + ' unfinished)' : '') : '—');
		add('Audit', (task.audit || []).map((action) => action.kind.toLowerCase() + ' ' + action.number + ' by ' + action.operator
			+ ' at ' + time(action.at) + ': ' + action.reason).join('; ') || '—');
		detail.replaceChildren(list);
	}

	// The watched dead-lettered task's dead letter: its link and its failure with the message (looked up once).
	async function deadLetterOf(watched) {
		if (watched.deadLetter === undefined) {
			const found = await findDeadLetter(watched.key, [watched.consumer], true);
			watched.deadLetter = found ? found.letter : null;
		}
		const letter = watched.deadLetter;
		if (!letter) {
			return 'none left (discarded, or not yet parked)';
		}
		const shown = el('span', null, 'why');
		shown.append(link(deadLetterHref(watched.consumer, letter.sequence), '#' + letter.sequence), ' ',
			longText('span', letter.reason));
		if (letter.exception) {
			shown.append(longText('code', failure(letter)));
		}
		return shown;
	}

	function confirmAction(action) {
		const dialog = $('confirm');
		$('confirm-title').textContent = action.title;
		$('confirm-text').textContent = action.text;
		$('confirm-ok').textContent = action.button;
		$('confirm-reason').value = '';
		$('confirm-signal').hidden = !action.signal;
		if (action.signal) {
			$('confirm-signal-name').value = action.signal.name;
			$('confirm-payload').value = action.signal.payload;
		}
		state.pending = action;
		dialog.showModal();
		$('confirm-reason').focus();
	}

	// The signal's name and JSON payload from the dialog, or null (and the field says why) when not valid.
	function signalInput() {
		const name = $('confirm-signal-name');
		const payload = $('confirm-payload');
		name.setCustomValidity(name.value.trim() ? '' : 'Name the signal (the wait\'s name)');
		let problem = '';
		try {
			if (JSON.parse(payload.value) === null) {
				problem = 'A null payload would read as the wait\'s timeout: send a value';
			}
		}
		catch (notJson) {
			problem = 'Not JSON: ' + notJson.message + ' (a text is quoted: "yes")';
		}
		payload.setCustomValidity(problem);
		if (!name.reportValidity() || !payload.reportValidity()) {
			return null;
		}
		return { name: name.value.trim(), payload: payload.value };
	}

	['confirm-signal-name', 'confirm-payload'].forEach((id) => $(id).addEventListener('input', () => $(id).setCustomValidity('')));
	$('confirm-cancel').addEventListener('click', () => $('confirm').close());
	$('confirm-form').addEventListener('submit', async (event) => {
		event.preventDefault();
		const reason = $('confirm-reason').value.trim();
		if (!reason) {
			$('confirm-reason').reportValidity();
			return;
		}
		const action = state.pending;
		let signal = null;
		if (action.signal) {
			signal = signalInput();
			if (!signal) {
				return;
			}
		}
		$('confirm').close();
		state.linkedDead = null;
		try {
			const outcome = await action.run(reason, signal);
			say(action.describe ? action.describe(outcome) : outcome.action.toLowerCase() + ' of task ' + outcome.key + ' done'
				+ (outcome.messageId ? ': republished as ' + outcome.messageId : '')
				+ (outcome.duplicate ? ' (the stream already held this copy: an earlier request for the same dead letter '
					+ 'or task stored it, and it runs once)' : '') + '.', true);
			state.watched = { consumer: action.consumer, key: action.key };
			window.history.replaceState(null, '', taskHref(action.consumer, action.key));
			$('find-consumer').value = action.consumer;
			$('find-key').value = action.key;
			await refresh();
		}
		catch (error) {
			say(error.message, false);
		}
	});
	$('find-dead').addEventListener('submit', async (event) => {
		event.preventDefault();
		const wanted = $('find-dead-id').value.trim();
		try {
			const found = await findDeadLetter(wanted);
			if (!found) {
				say('No dead letter #' + wanted + ' or of task ' + wanted + '.', false);
				return;
			}
			state.deadFrom[found.consumer] = found.letter.sequence;
			say('Dead letter #' + found.letter.sequence + ' of ' + found.consumer + ' is listed first below.', true);
			await refresh();
		}
		catch (error) {
			say(error.message, false);
		}
	});
	$('find-task').addEventListener('submit', (event) => {
		event.preventDefault();
		const href = taskHref($('find-consumer').value, $('find-key').value.trim());
		if (window.location.hash === href) {
			openLinked();
		}
		else {
			window.location.hash = href;
		}
	});
	window.addEventListener('hashchange', openLinked);

	fetch('config.json').then((response) => response.json()).then((config) => {
		state.actuator = config.actuator;
	}).catch(() => { /* the default /actuator */ }).finally(() => {
		openLinked();
		refresh();
		setInterval(refresh, REFRESH_MS);
	});
}());
