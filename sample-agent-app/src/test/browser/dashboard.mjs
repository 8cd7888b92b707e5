// Drives the exactly-once dashboard in Debian's chromium, headless, for DashboardBrowserIntegrationTests.
// Usage: node dashboard.mjs <dead-letter|replay> <dashboard url> <screenshot dir> <task key>
//   dead-letter: waits until the page lists the task's dead letter (payload hidden), screenshots it
//   replay:      clicks Replay on it, gives a reason in the confirmation, waits until the page shows the
//                task completed and no dead letter left, screenshots the confirmation and the result
import { chromium } from 'playwright-core';
import path from 'node:path';

const [phase, url, screenshots, key] = process.argv.slice(2);
const TIMEOUT = 60_000;

const browser = await chromium.launch({
	executablePath: process.env.CHROMIUM_BIN || '/usr/bin/chromium',
	args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
	const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
	page.setDefaultTimeout(TIMEOUT);
	await page.goto(url);
	const row = page.locator('#dead-letters tbody tr', { hasText: key });
	await row.waitFor();
	if (phase === 'dead-letter') {
		const payload = await row.locator('td').nth(7).textContent();
		if (payload.trim() !== 'hidden') {
			throw new Error('the payload of the dead letter is shown without show-payloads: ' + payload);
		}
		await page.screenshot({ path: path.join(screenshots, 'dashboard-1-dead-letter.png'), fullPage: true });
	}
	else if (phase === 'replay') {
		await row.getByRole('button', { name: /^Replay dead letter/ }).click();
		const dialog = page.getByRole('dialog');
		await dialog.waitFor();
		await dialog.getByLabel('Reason (kept in the task\'s audit)').fill('topic filter fixed');
		await page.screenshot({ path: path.join(screenshots, 'dashboard-2-confirm-replay.png'), fullPage: true });
		await dialog.getByRole('button', { name: 'Replay' }).click();
		await page.locator('#message', { hasText: 'republished as ' + key + '/replay-DEAD_LETTERS-' }).waitFor();
		await page.locator('#task-detail .status-COMPLETED').waitFor();
		await page.locator('#dead-letters tbody', { hasText: 'No dead letters.' }).waitFor();
		await page.locator('#task-detail', { hasText: 'replay 1 by anonymous' }).waitFor();
		await page.screenshot({ path: path.join(screenshots, 'dashboard-3-replayed.png'), fullPage: true });
	}
	else {
		throw new Error('unknown phase ' + phase);
	}
	console.log('dashboard ' + phase + ': ok');
}
finally {
	await browser.close();
}
