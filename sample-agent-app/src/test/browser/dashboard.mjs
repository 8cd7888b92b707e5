// Drives the exactly-once dashboard in Debian's chromium, headless, for the dashboard's browser tests.
// Usage: node dashboard.mjs <phase> <dashboard url> <screenshot dir> <task key>
//   dead-letter: waits until the page lists the task's dead letter (payload hidden, the exception's message
//                shown, its long end readable once expanded), checks at 1280 and 1920 px wide that the page does
//                not scroll sideways, screenshots both; says what the monthly table's Published counts; opens the
//                dead letter's link and the task's link in fresh pages: the first marks the dead letter, the
//                second shows the task dead-lettered with its exception's message
//   no-metrics:  the metrics endpoint answers 404 (not exposed): the charts are hidden with a note saying how
//                to expose it, and the page asks for metrics once, not on every refresh
//   replay:      clicks Replay on it, gives a reason in the confirmation, waits until the page shows the
//                task completed and no dead letter left, screenshots the confirmation and the result
//   refused:     as replay, but expects the endpoint to refuse the write (403) and the page to say so
//   stale:       the endpoints cannot answer (NATS paused): the page must say so, never stay on "Loading…"
//   waiting:     the task (of the consumer given as fifth argument) is listed under Waiting with what it waits for
//                (signal review), since and deadline; Approve, with a reason, resumes it: the page says so and shows
//                the task completed, its wait signalled (with the page's signal id) and the RESUME audit entry
//   signal:      Signal… on the task's row: a payload that is not JSON is refused in the form; a JSON payload of
//                its own is sent and resumes it
//   family:      the task (a parent, of the consumer given as fifth argument) waits for its child <consumer>/<key>/review:
//                its view says it waits for that child (linked, waiting) and the Waiting list offers no Approve
//                on it; the child's link opens the child, whose view links its parent; Approve there resumes
//                the child; the parent's link then shows the parent completed, its child completed
//   limits:      the Limits view shows limit <consumer> (fifth argument: the limit's name): concurrency, one task
//                holding (1 per key), two waiting and the oldest waiter's age; and its key <key>: 1 / 1 in use,
//                2 / 5000 waiting, its oldest waiter's age
//   find:        finds the task (any key: slashes, percent signs...) of the consumer given as fifth argument
//                with the page's form and waits until it shows it completed; the page's address then opens
//                the same task in a fresh page
// DASHBOARD_USER and DASHBOARD_PASSWORD, when set, are sent as HTTP Basic credentials.
import { chromium } from 'playwright-core';
import path from 'node:path';

const [phase, url, screenshots, key, consumer] = process.argv.slice(2);
const TIMEOUT = 60_000;
const credentials = process.env.DASHBOARD_USER
	? { username: process.env.DASHBOARD_USER, password: process.env.DASHBOARD_PASSWORD }
	: undefined;
const prefix = 'dashboard-' + (process.env.DASHBOARD_USER ? process.env.DASHBOARD_USER + '-' : '');

const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM_BIN || '/usr/bin/chromium',
	args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
	const context = await browser.newContext({ viewport: { width: 1280, height: 1400 }, httpCredentials: credentials });
	const page = await context.newPage();
	page.setDefaultTimeout(TIMEOUT);
	let metricsRequests = 0;
	if (phase === 'no-metrics') {
		await page.route('**/actuator/metrics**', (route) => {
			metricsRequests++;
			return route.fulfill({ status: 404, contentType: 'application/json', body: '{"status":404,"error":"Not Found"}' });
		});
	}
	await page.goto(url);
	if (phase === 'no-metrics') {
		await page.locator('#charts-note', { hasText: 'The metrics endpoint is not exposed' }).waitFor();
		if (await page.locator('#charts-body').isVisible()) {
			throw new Error('the charts are shown although the metrics endpoint is not exposed');
		}
		for (let refreshes = 0; refreshes < 2; refreshes++) {
			const before = await page.locator('#summary').textContent();
			await page.waitForFunction((text) => document.getElementById('summary').textContent !== text, before);
		}
		if (metricsRequests !== 1) {
			throw new Error('the page asked for metrics ' + metricsRequests + ' times in three refreshes, expected once');
		}
		await page.screenshot({ path: path.join(screenshots, prefix + '6-no-metrics.png'), fullPage: true });
	}
	else if (phase === 'stale') {
		await page.locator('#summary', { hasText: 'Nothing read yet: ' }).waitFor();
		const summary = await page.locator('#summary').textContent();
		if (summary.includes('exposure.include')) {
			throw new Error('the page advises exposing endpoints that are exposed: ' + summary);
		}
		await page.screenshot({ path: path.join(screenshots, prefix + '4-stale.png'), fullPage: true });
	}
	else if (phase === 'waiting' || phase === 'signal') {
		await waitingPhase(page);
	}
	else if (phase === 'family') {
		await familyPhase(page);
	}
	else if (phase === 'limits') {
		await limitsPhase(page);
	}
	else if (phase === 'find') {
		await page.locator('#find-consumer option', { hasText: consumer }).waitFor({ state: 'attached' });
		await page.locator('#find-consumer').selectOption(consumer);
		await page.getByLabel('Key', { exact: true }).fill(key);
		await page.getByRole('button', { name: 'Show' }).click();
		await page.locator('#task-detail .status-COMPLETED').waitFor();
		await page.locator('#task-detail dd', { hasText: key }).first().waitFor();
		await page.screenshot({ path: path.join(screenshots, prefix + '5-found.png'), fullPage: true });
		const address = page.url();
		if (!address.includes('#task=') || (key.includes('/') && !address.includes('%2F'))) {
			throw new Error('the found task has no address of its own, or its key is not encoded: ' + address);
		}
		const linked = await context.newPage();
		await linked.goto(address);
		await linked.locator('#task-detail .status-COMPLETED').waitFor();
		await linked.locator('#task-detail dd', { hasText: key }).first().waitFor();
	}
	else {
		await deadLetterPhase(page);
	}
	console.log('dashboard ' + phase + ': ok');
}
finally {
	await browser.close();
}

async function deadLetterPhase(page) {
	const row = page.locator('#dead-letters tbody tr', { hasText: key });
	await row.waitFor();
	if (phase === 'dead-letter') {
		const payload = await row.locator('td').nth(6).textContent();
		if (payload.trim() !== 'hidden') {
			throw new Error('the payload of the dead letter is shown without show-payloads: ' + payload);
		}
		await row.locator('.why summary', { hasText: 'RejectedTopicException: ' }).waitFor();
		await expandLongText(row.locator('.why'), 'then replay this dead letter');
		await page.locator('#monthly-note', { hasText: 'follow-up tasks for other consumers' }).waitFor();
		for (const width of [1280, 1920]) {
			await page.setViewportSize({ width, height: 1400 });
			const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
			if (sideways > 0) {
				throw new Error('at ' + width + ' px the page scrolls sideways by ' + sideways + ' px');
			}
			await page.screenshot({ path: path.join(screenshots, prefix + '1-dead-letter-' + width + '.png'), fullPage: true });
		}
		await page.setViewportSize({ width: 1280, height: 1400 });
		const deadLetterLink = await row.getByRole('link', { name: /^Link to dead letter/ }).getAttribute('href');
		const linkedDead = await page.context().newPage();
		await linkedDead.goto(url + deadLetterLink);
		await linkedDead.locator('#dead-letters tr.linked', { hasText: key }).waitFor();
		const taskLink = await row.getByRole('link', { name: key, exact: true }).getAttribute('href');
		const linkedTask = await page.context().newPage();
		await linkedTask.goto(url + taskLink);
		await linkedTask.locator('#task-detail .status-DEAD_LETTERED').waitFor();
		await expandLongText(linkedTask.locator('#task-detail'), 'then replay this dead letter');
		await linkedTask.screenshot({ path: path.join(screenshots, prefix + '1-task-link.png'), fullPage: true });
	}
	else if (phase === 'replay' || phase === 'refused') {
		await row.getByRole('button', { name: /^Replay dead letter/ }).click();
		const dialog = page.getByRole('dialog');
		await dialog.waitFor();
		await dialog.getByLabel('Reason (kept in the task\'s audit)').fill('topic filter fixed');
		await page.screenshot({ path: path.join(screenshots, prefix + '2-confirm-replay.png'), fullPage: true });
		await dialog.getByRole('button', { name: 'Replay' }).click();
		if (phase === 'refused') {
			await page.locator('#message.error', { hasText: '403' }).waitFor();
			await page.locator('#message.error', { hasText: 'your user may not do this here' }).waitFor();
			await page.screenshot({ path: path.join(screenshots, prefix + '3-refused.png'), fullPage: true });
		}
		else {
			await page.locator('#message', { hasText: 'republished as ' + key + '/replay-DEAD_LETTERS-' }).waitFor();
			await page.locator('#task-detail .status-COMPLETED').waitFor();
			await page.locator('#dead-letters tbody', { hasText: 'No dead letters.' }).waitFor();
			await page.locator('#task-detail', { hasText: 'replay 1 by ' + (process.env.DASHBOARD_USER || 'anonymous') }).waitFor();
			await page.screenshot({ path: path.join(screenshots, prefix + '3-replayed.png'), fullPage: true });
		}
	}
	else {
		throw new Error('unknown phase ' + phase);
	}
}

async function waitingPhase(page) {
	const row = page.locator('#waiting tbody tr', { hasText: key });
	await row.waitFor();
	const cells = await row.locator('td').allTextContents();
	if (cells[0] !== consumer || cells[2] !== 'signal review' || cells[3] === '—' || cells[4] === '—') {
		throw new Error('the waiting row does not say what the task waits for, since and until when: ' + cells.join(' | '));
	}
	const dialog = page.getByRole('dialog');
	if (phase === 'waiting') {
		await page.screenshot({ path: path.join(screenshots, prefix + '7-waiting.png'), fullPage: true });
		await row.getByRole('button', { name: 'Approve task ' + key + ' (signal review)' }).click();
		await dialog.waitFor();
		await dialog.getByLabel('Reason (kept in the task\'s audit)').fill('looks right');
		await dialog.getByRole('button', { name: 'Approve' }).click();
	}
	else {
		await row.getByRole('button', { name: 'Send a signal to task ' + key }).click();
		await dialog.waitFor();
		if (await dialog.getByLabel('Signal name').inputValue() !== 'review') {
			throw new Error('the signal form does not name the wait the task is at');
		}
		await dialog.getByLabel('Payload (JSON)').fill('approved');
		await dialog.getByLabel('Reason (kept in the task\'s audit)').fill('custom');
		await dialog.getByRole('button', { name: 'Send' }).click();
		const refused = await page.locator('#confirm-payload').evaluate((field) => field.validationMessage);
		if (!refused.includes('Not JSON') || !await dialog.isVisible()) {
			throw new Error('a payload that is not JSON was not refused in the form: "' + refused + '"');
		}
		await dialog.getByLabel('Payload (JSON)').fill('{"approved": false, "by": "page", "reason": "custom payload"}');
		await page.screenshot({ path: path.join(screenshots, prefix + '8-signal-form.png'), fullPage: true });
		await dialog.getByRole('button', { name: 'Send' }).click();
	}
	await page.locator('#message.ok', { hasText: 'signal review to task ' + key + ': resumed' }).waitFor();
	await page.locator('#task-detail .status-COMPLETED').waitFor();
	await page.locator('#task-detail', { hasText: 'signal review since ' }).waitFor();
	await page.locator('#task-detail', { hasText: 'signalled (signal id dashboard-' }).waitFor();
	await page.locator('#task-detail', { hasText: 'resume 1 by ' + (process.env.DASHBOARD_USER || 'anonymous') }).waitFor();
	await page.locator('#waiting tbody tr', { hasText: key }).waitFor({ state: 'detached' });
	if (phase === 'waiting') {
		await page.screenshot({ path: path.join(screenshots, prefix + '7-approved.png'), fullPage: true });
	}
}

// Expands the long exception message inside the container and waits until its end is visible.
async function expandLongText(container, end) {
	const message = container.locator('details.long', { hasText: 'RejectedTopicException: ' }).first();
	await message.locator('summary').click();
	await message.locator('code', { hasText: end }).waitFor({ state: 'visible' });
}

async function familyPhase(page) {
	const child = consumer + '/' + key + '/review';
	await page.goto(url + '#task=' + encodeURIComponent(consumer) + '/' + encodeURIComponent(key));
	const detail = page.locator('#task-detail');
	await detail.locator('.status-WAITING').first().waitFor();
	const waitsFor = detail.locator('dt', { hasText: /^Waits for$/ }).locator('xpath=following-sibling::dd[1]');
	await waitsFor.locator('li', { hasText: 'review: ' + child }).locator('.status-WAITING').waitFor();
	await detail.locator('dd', { hasText: 'child review since ' }).waitFor();
	const row = page.locator('#waiting tbody tr', { hasText: key }).filter({ hasText: 'child review' });
	await row.waitFor();
	if (await row.getByRole('button').count() !== 0) {
		throw new Error('the Waiting list offers buttons on a task that waits for its child: ' + await row.textContent());
	}
	await page.screenshot({ path: path.join(screenshots, prefix + '9-parent-waits.png'), fullPage: true });
	await waitsFor.getByRole('link', { name: child, exact: true }).click();
	const parent = detail.locator('dt', { hasText: /^Parent$/ }).locator('xpath=following-sibling::dd[1]');
	await parent.getByRole('link', { name: key, exact: true }).waitFor();
	await parent.locator('text=(its child review)').waitFor();
	await page.screenshot({ path: path.join(screenshots, prefix + '9-child.png'), fullPage: true });
	await detail.getByRole('button', { name: 'Approve task ' + child + ' (signal review)' }).click();
	const dialog = page.getByRole('dialog');
	await dialog.waitFor();
	await dialog.getByLabel('Reason (kept in the task\'s audit)').fill('child checked');
	await dialog.getByRole('button', { name: 'Approve' }).click();
	await page.locator('#message.ok', { hasText: 'signal review to task ' + child + ': resumed' }).waitFor();
	await detail.locator('.status-COMPLETED').first().waitFor();
	await parent.getByRole('link', { name: key, exact: true }).click();
	const children = detail.locator('dt', { hasText: /^Children$/ }).locator('xpath=following-sibling::dd[1]');
	await detail.locator('dd', { hasText: 'review: approved by anonymous: child checked' }).waitFor();
	await children.locator('li', { hasText: 'review: ' + child }).locator('.status-COMPLETED').waitFor();
	await page.screenshot({ path: path.join(screenshots, prefix + '9-parent-done.png'), fullPage: true });
}

async function limitsPhase(page) {
	const limit = page.locator('#limits tbody tr', { hasText: 'all keys' }).filter({ hasText: consumer })
		.filter({ hasText: '1 holding (1 per key)' });
	await limit.waitFor();
	const keyRow = page.locator('#limits tbody tr', { hasText: key }).filter({ hasText: '2 / 5000' });
	await keyRow.waitFor();
	const limitCells = await limit.locator('td').allTextContents();
	if (limitCells[0] !== consumer || limitCells[1] !== 'concurrency' || limitCells[2] !== 'all keys (1)'
		|| limitCells[4] !== '2' || !/^\d+ s$/.test(limitCells[5])) {
		throw new Error('the limit row does not say its kind, use, queue and oldest wait: ' + limitCells.join(' | '));
	}
	const keyCells = await keyRow.locator('td').allTextContents();
	if (keyCells[2] !== key || keyCells[3] !== '1 / 1' || !/^\d+ s$/.test(keyCells[5])) {
		throw new Error('the key row does not say its key, use and oldest wait: ' + keyCells.join(' | '));
	}
	await page.locator('#limits').scrollIntoViewIfNeeded();
	await page.screenshot({ path: path.join(screenshots, prefix + '10-limits.png'), fullPage: true });
}
