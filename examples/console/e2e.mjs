// Drives the Ballast console in Debian's Chromium through playwright-core. e2e.sh starts
// Ballast, registers the "shop" service and hands over, in the environment:
//   BALLAST_URL, OPERATOR_TOKEN, READER_TOKEN, CURL_HEADER (a curl header file with the
//   admin token: the "other client"), SHOTS (screenshot folder), PROFILE (a fresh
//   --user-data-dir)
// Each step saves SHOTS/NN-step.png. It prints one PASS line with the figures, or fails
// with the step that broke.
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const base = process.env.BALLAST_URL;
const shots = process.env.SHOTS;
const service = 'shop';
const started = Date.now();

// Every wait below has its own timeout; this bounds the whole run.
setTimeout(() => {
  console.error('console e2e: FAIL: the run took over 240 s');
  process.exit(1);
}, 240000).unref();

let step = 'launch';
const context = await chromium.launchPersistentContext(process.env.PROFILE, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1366, height: 768 },
});
const page = context.pages()[0] ?? await context.newPage();
page.setDefaultTimeout(15000);
const problems = [];
page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
// Refused calls are checked below by their URL and status; Chromium's own console line
// for each ("Failed to load resource") says nothing more.
page.on('console', (message) => {
  if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
    problems.push(`console error: ${message.text()}`);
  }
});
const refused = [];
page.on('response', (response) => {
  if (response.status() >= 400) {
    refused.push(`${response.request().method()} ${new URL(response.url()).pathname} ${response.status()}`);
  }
});
// The token must never travel in a URL.
const urls = [];
page.on('request', (request) => urls.push(request.url()));

function check(condition, what) {
  if (!condition) {
    throw new Error(what);
  }
}

async function shot(number, name) {
  await page.screenshot({ path: `${shots}/${number}-${name}.png` });
}

/** Another client's write, with curl: the console must show it without a reload. */
function curl(method, path, body) {
  return execFileSync('curl', ['-fsS', '-m', '10', '-X', method, '-H', `@${process.env.CURL_HEADER}`,
    '-H', 'Content-Type: application/json', '--data', body, `${base}${path}`], { encoding: 'utf8' });
}

/** Text that only a rendering bug shows. */
async function noStrayText() {
  const text = await page.locator('main').innerText();
  check(!/\b(null|undefined|NaN)\b/.test(text), `the page shows null, undefined or NaN: ${text.slice(0, 400)}`);
}

const row = (id) => page.locator(`tr[data-instance="${id}"]`);
const figure = (id, column) => row(id).locator(`td.${column} .figure`);

try {
  step = '01 sign-in page, and its weight on first load';
  let firstLoadBytes = 0;
  let firstLoadRequests = 0;
  const counting = async (response) => {
    const sizes = await response.request().sizes().catch(() => null);
    if (sizes) {
      firstLoadBytes += sizes.responseBodySize + sizes.responseHeadersSize;
      firstLoadRequests += 1;
    }
  };
  page.on('response', counting);
  await page.goto(`${base}/`, { waitUntil: 'networkidle' });
  page.off('response', counting);
  check(new URL(page.url()).pathname === '/console/', `/ should redirect to /console/, got ${page.url()}`);
  await page.getByLabel('Access token').waitFor();
  check(!(await page.getByRole('button', { name: 'Sign out' }).isVisible()), 'no Sign out before signing in');
  await shot('01', 'sign-in');

  step = '02 sign in as operator: services at a glance';
  await page.getByLabel('Access token').fill(process.env.OPERATOR_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#who-role', { hasText: 'operator' }).waitFor();
  const overviewRow = page.locator(`tr[data-service="${service}"]`);
  await overviewRow.waitFor();
  check((await overviewRow.locator('td').first().textContent()).trim() === '4 / 4', 'overview: 4 of 4 routable');
  check(await overviewRow.getByRole('meter', { name: `${service} guard budget in use` }).getAttribute('aria-valuenow') === '0',
    'overview: no budget in use');
  await shot('02', 'services');

  step = '03 the service page: every instance and its weights';
  await overviewRow.getByRole('link', { name: service }).click();
  await row('d').waitFor();
  for (const id of ['a', 'b', 'c', 'd']) {
    check(await figure(id, 'weight').textContent() === '100', `${id} shows weight 100`);
    check(await figure(id, 'effective').textContent() === '100', `${id} shows effective weight 100`);
  }
  await page.locator('#live', { hasText: 'live' }).waitFor();
  const revisionBefore = Number(await page.locator('#revision').textContent());
  check(revisionBefore >= 4, `a revision is shown (${revisionBefore})`);
  const lease = await row('a').locator('td.lease').textContent();
  await page.waitForFunction((before) => document.querySelector('tr[data-instance="a"] td.lease').textContent !== before,
    lease, { timeout: 5000 });
  await noStrayText();
  await shot('03', 'service');

  step = '04 a weight edit made by another client (curl) appears without a reload';
  await page.evaluate(() => {
    window.notReloaded = true;
  });
  const seenAfter = Date.now();
  curl('PATCH', `/v1/services/${service}/instances/b`, '{"weight":250}');
  await page.waitForFunction(() => document.querySelector('tr[data-instance="b"] td.weight .figure')?.textContent === '250');
  const liveMs = Date.now() - seenAfter;
  check(await page.evaluate(() => window.notReloaded === true), 'the page was not reloaded');
  check(Number(await page.locator('#revision').textContent()) > revisionBefore, 'the revision moved');
  await page.locator('#settings', { hasText: '550 / 550' }).waitFor();
  await shot('04', 'live-update');

  step = '05 edit a weight in the console (If-Match handled)';
  await row('a').getByRole('button', { name: 'Edit the weight of a' }).click();
  await page.getByLabel('Weight (0 to 10000)').fill('150');
  await page.getByRole('button', { name: 'Save weight' }).click();
  await page.waitForFunction(() => document.querySelector('tr[data-instance="a"] td.weight .figure')?.textContent === '150');
  // The dialog closes on the PATCH's answer, which may reach the page after the watch
  // stream's event for the same change.
  check(await page.locator('#dialog').waitFor({ state: 'hidden', timeout: 5000 }).then(() => true, () => false),
    'the dialog closed');
  await shot('05', 'weight-edited');

  step = '06 a drain the guard refuses is explained, force only after confirming';
  // One instance may go while nothing else is out; with d in maintenance (100) b's 250
  // would make 350 of 600 unroutable: 58.3% > 25%.
  curl('POST', `/v1/services/${service}/instances/d/maintenance`, '{"reason":"e2e"}');
  await page.locator('tr[data-instance="d"][data-mode="MAINTENANCE"]').waitFor();
  await row('b').getByRole('button', { name: 'Drain b' }).click();
  await page.getByRole('button', { name: 'Drain', exact: true }).click();
  const refusal = page.locator('#dialog-problem .guard');
  await refusal.waitFor();
  const explained = await refusal.textContent();
  for (const expected of ['58.3%', '25%', 'service', 'd (in maintenance)']) {
    check(explained.includes(expected), `the refusal shows ${expected}: ${explained}`);
  }
  // The budget is offered beside force; a bad one is refused naming why.
  await page.getByLabel('Budget of shop (maxUnroutable)').fill('lots');
  await page.getByRole('button', { name: 'Change the budget' }).click();
  await refusal.locator('[role=status]', { hasText: 'maxUnroutable must be' }).waitFor();
  check(await page.locator('#dialog-submit').isDisabled(), 'force is disabled until confirmed');
  await page.getByLabel(/Force past the guard/).check();
  check(await page.locator('#dialog-submit').isEnabled(), 'force is enabled once confirmed');
  await shot('06', 'guard-refusal');
  await page.getByRole('button', { name: 'Cancel' }).click();
  check(await figure('b', 'effective').textContent() === '250', 'nothing was drained');
  curl('POST', `/v1/services/${service}/instances/d/serve`, '{"warmupSeconds":0}');
  await page.locator('tr[data-instance="d"][data-mode="SERVING"]').waitFor();

  step = '07 drain an instance and watch its bar go to 0';
  await row('c').getByRole('button', { name: 'Drain c' }).click();
  await page.getByLabel('Ramp duration (seconds)').fill('3');
  await page.getByRole('button', { name: 'Drain', exact: true }).click();
  await page.locator('tr[data-instance="c"][data-mode="DRAINING"]').waitFor();
  const drainStart = Date.now();
  await page.waitForFunction(() => document.querySelector('tr[data-instance="c"] td.effective [role=meter]')
    ?.getAttribute('aria-valuenow') === '0', null, { timeout: 30000 });
  const drainMs = Date.now() - drainStart;
  check(await figure('c', 'weight').textContent() === '100', 'the configured weight stays 100');
  await page.locator('#budget [role=meter]:not([aria-valuenow="0"])').waitFor();
  await page.locator('table.audit td', { hasText: 'instance.drain' }).first().waitFor();
  await shot('07', 'drained');

  step = '08 start a release, advance it, see its progress, abort it';
  await page.getByRole('button', { name: 'Start a release…' }).click();
  await page.getByLabel('From (key=value)').fill('version=1.4.1');
  await page.getByLabel('To (key=value)').fill('version=1.4.4');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  const card = page.locator('#release-current');
  await card.locator('[role=meter][aria-valuenow="10"]').waitFor();
  await card.getByRole('button', { name: 'Advance' }).click();
  await page.locator('#dialog').getByRole('button', { name: 'Advance' }).click();
  await card.locator('[role=meter][aria-valuenow="50"]').waitFor();
  // At 50% the to group (d) gets half of the 250 the two groups share: the rows follow
  // the release through the watch stream.
  await page.waitForFunction(() => document.querySelector('tr[data-instance="d"] td.weight .figure')?.textContent === '125');
  await shot('08', 'release');
  await card.getByRole('button', { name: 'Abort' }).click();
  await page.locator('#dialog').getByRole('button', { name: 'Abort' }).click();
  await page.getByText('No release under way.').waitFor();
  await page.waitForFunction(() => document.querySelector('tr[data-instance="d"] td.weight .figure')?.textContent === '100');

  step = '09 a reader token sees no write controls';
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Access token').fill(process.env.READER_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#who-role', { hasText: 'reader' }).waitFor();
  await row('d').waitFor();
  const writeControls = await page.locator('.write').count();
  check(writeControls === 0, `a reader sees ${writeControls} write controls`);
  for (const name of ['Drain', 'Serve', 'Maintenance', 'Weight', 'Advance', 'Abort', 'Start a release']) {
    check(await page.getByRole('button', { name }).count() === 0, `a reader sees a ${name} button`);
  }
  check(await page.locator('#audit-title').count() === 0, 'a reader sees no audit trail');
  await noStrayText();
  await shot('09', 'reader');

  step = 'the token never in a URL, no script errors';
  const leaked = urls.filter((url) => url.includes(process.env.OPERATOR_TOKEN) || url.includes(process.env.READER_TOKEN));
  check(leaked.length === 0, `the token went into a URL: ${leaked[0]}`);
  check(problems.length === 0, problems.join('; '));
  // The guard's refusal is the one refused call the run makes.
  const unexpected = refused.filter((line) => line !== 'POST /v1/services/shop/instances/b/drain 409'
    && line !== 'PATCH /v1/services/shop 422');
  check(unexpected.length === 0, `refused calls: ${unexpected.join(', ')}`);

  console.log(`console e2e PASS: first load ${firstLoadBytes} bytes in ${firstLoadRequests} requests; `
    + `curl edit shown live in ${liveMs} ms; drain bar at 0 in ${drainMs} ms; reader write controls 0; `
    + `9 screenshots in ${shots}; ${Math.round((Date.now() - started) / 1000)} s`);
} catch (error) {
  await page.screenshot({ path: `${shots}/failed.png` }).catch(() => {});
  console.error(`console e2e: FAIL at step "${step}": ${error.message}`);
  process.exitCode = 1;
} finally {
  await context.close();
}
