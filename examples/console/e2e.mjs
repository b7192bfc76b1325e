// Drives the Ballast console in Debian's Chromium through playwright-core. e2e.sh starts
// Ballast, registers the services (shop, solo, pay, cart, zoned, probed) and hands over, in the
// environment:
//   BALLAST_URL, OPERATOR_TOKEN, READER_TOKEN, ADMIN_TOKEN, CURL_HEADER (a curl header
//   file with the bootstrap admin token: the "other client"), SHOTS (screenshot folder),
//   PROFILE (a fresh --user-data-dir)
// Each step saves SHOTS/NN-step.png. It prints the screenshots and one PASS line with the
// figures, or fails with the step that broke.
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const base = process.env.BALLAST_URL;
const shots = process.env.SHOTS;
const service = 'shop';
const started = Date.now();
const saved = [];

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
// The tokens must never travel in a URL.
const urls = [];
page.on('request', (request) => urls.push(request.url()));
// Every file of the console the run loads, once each: what all its pages weigh.
const code = new Map();
page.on('response', async (response) => {
  const url = new URL(response.url());
  if (url.pathname.startsWith('/console/') && !code.has(url.pathname)) {
    code.set(url.pathname, 0);
    const sizes = await response.request().sizes().catch(() => null);
    code.set(url.pathname, sizes ? sizes.responseBodySize + sizes.responseHeadersSize : 0);
  }
});

function check(condition, what) {
  if (!condition) {
    throw new Error(what);
  }
}

async function shot(number, name, options = {}) {
  const path = `${shots}/${number}-${name}.png`;
  await page.screenshot({ path, ...options });
  saved.push(path);
}

/** Another client's call, with curl (the bootstrap admin token unless a token is given). */
function curl(method, path, body, token) {
  const auth = token ? ['-H', `Authorization: Bearer ${token}`] : ['-H', `@${process.env.CURL_HEADER}`];
  return execFileSync('curl', ['-fsS', '-m', '10', '-X', method, ...auth, '-H', 'Content-Type: application/json',
    ...(body === undefined ? [] : ['--data', body]), `${base}${path}`], { encoding: 'utf8' });
}

/** The status curl gets for a GET with {@code token} (given on stdin, so that ps shows it nowhere). */
function statusWith(token, path) {
  return execFileSync('curl', ['-sS', '-m', '10', '-o', '/dev/null', '-w', '%{http_code}', '-H', '@-', `${base}${path}`],
    { encoding: 'utf8', input: `Authorization: Bearer ${token}\n` });
}

/** Text that only a rendering bug shows. */
async function noStrayText() {
  const text = await page.locator('main').innerText();
  check(!/\b(null|undefined|NaN)\b/.test(text), `the page shows null, undefined or NaN: ${text.slice(0, 400)}`);
}

async function signInAs(secret, role) {
  if (await page.getByRole('button', { name: 'Sign out' }).isVisible()) {
    await page.getByRole('button', { name: 'Sign out' }).click();
  }
  await page.getByLabel('Access token').fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#who-role', { hasText: role }).waitFor();
}

async function open(hash) {
  await page.evaluate((target) => {
    location.hash = target;
  }, hash);
}

const row = (id) => page.locator(`tr[data-instance="${id}"]`);
const figure = (id, column) => row(id).locator(`td.${column} .figure`);
const dialog = page.locator('#dialog');
const inDialog = () => page.evaluate(() => document.getElementById('dialog').contains(document.activeElement));

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
  check(new URL(page.url()).pathname === '/console/', `/ should redirect to /console/, got ${page.url()}`);
  await page.getByLabel('Access token').waitFor();
  check(!(await page.getByRole('button', { name: 'Sign out' }).isVisible()), 'no Sign out before signing in');
  const signInBytes = firstLoadBytes;
  await shot('01', 'sign-in');

  step = '02 sign in as operator: services at a glance, with health';
  await signInAs(process.env.OPERATOR_TOKEN, 'operator');
  const overviewRow = page.locator(`tr[data-service="${service}"]`);
  await overviewRow.waitFor();
  await page.waitForLoadState('networkidle');
  const overviewBytes = firstLoadBytes;
  const overviewRequests = firstLoadRequests;
  check(overviewBytes < 100 * 1024, `the first load to the overview weighs ${overviewBytes} bytes`);
  check((await overviewRow.locator('td.num').first().innerText()).trim() === '4 / 4', 'overview: 4 of 4 routable');
  check(await overviewRow.getAttribute('data-health') === 'ok', 'overview: shop is healthy');
  check(await overviewRow.getByRole('meter', { name: `${service} guard budget in use` }).getAttribute('aria-valuenow') === '0',
    'overview: no budget in use');
  check((await overviewRow.locator('td.tags').innerText()).includes('canary'), 'overview: shop shows its tags');
  await shot('02', 'services');

  step = '03 the service page: every instance and its weights';
  await overviewRow.getByRole('link', { name: service }).click();
  await row('d').waitFor();
  for (const id of ['a', 'b', 'c', 'd']) {
    check(await figure(id, 'weight').textContent() === '100', `${id} shows weight 100`);
    check(await figure(id, 'effective').textContent() === '100', `${id} shows effective weight 100`);
  }
  await page.locator('#live', { hasText: 'live' }).waitFor();
  await page.waitForLoadState('networkidle');
  page.off('response', counting);
  const serviceBytes = firstLoadBytes;
  check(serviceBytes < 100 * 1024, `the first load to a service page weighs ${serviceBytes} bytes`);
  const revisionBefore = Number(await page.locator('#revision').textContent());
  check(revisionBefore >= 4, `a revision is shown (${revisionBefore})`);
  const lease = await row('a').locator('td.lease').textContent();
  await page.waitForFunction((before) => document.querySelector('tr[data-instance="a"] td.lease').textContent !== before,
    lease, { timeout: 5000 });
  check((await row('d').locator('td.tags').innerText()).includes('canary'), 'd shows its tags');
  await page.getByLabel('Tag', { exact: true }).selectOption('canary');
  await page.waitForFunction(() => document.querySelectorAll('tr[data-instance]').length === 1);
  check(await row('d').count() === 1, 'the tag filter keeps d alone');
  await page.getByLabel('Tag', { exact: true }).selectOption('');
  await row('a').waitFor();
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
  // The header is drawn from the rows' own instances, with them: no wait between the two.
  const headerNow = await page.locator('#settings').innerText();
  check(headerNow.includes('550 / 550') && headerNow.includes('4 / 4'), `the header changed with the row: ${headerNow}`);
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
  check(await dialog.waitFor({ state: 'hidden', timeout: 5000 }).then(() => true, () => false), 'the dialog closed');
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
  await dialog.getByRole('button', { name: 'Advance' }).click();
  await card.locator('[role=meter][aria-valuenow="50"]').waitFor();
  // At 50% the to group (d) gets half of the 250 the two groups share: the rows follow
  // the release through the watch stream.
  await page.waitForFunction(() => document.querySelector('tr[data-instance="d"] td.weight .figure')?.textContent === '125');
  await shot('08', 'release');
  await card.getByRole('button', { name: 'Abort' }).click();
  await dialog.getByRole('button', { name: 'Abort' }).click();
  await page.getByText('No release under way.').waitFor();
  await page.waitForFunction(() => document.querySelector('tr[data-instance="d"] td.weight .figure')?.textContent === '100');

  step = '09 the history of the release, step by step, from the audit log';
  await page.getByRole('button', { name: 'History of release #1' }).click();
  const history = page.locator('#release-history');
  await history.waitFor();
  const steps = await history.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.action));
  check(JSON.stringify(steps) === JSON.stringify(['release.start', 'release.advance', 'release.abort']),
    `the history lists start, advance, abort: ${steps}`);
  check((await history.innerText()).includes('10% → 50%'), 'the history shows the step from 10% to 50%');
  await shot('09', 'release-history');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });

  step = '10 health on the overview: a lease run out is held routable by the cap, not green';
  await page.getByRole('link', { name: 'Services' }).first().click();
  const solo = page.locator('tr[data-service="solo"]');
  const pay = page.locator('tr[data-service="pay"]');
  // The 5 s leases expire, and the next sweeps judge them (every 5 s, 2 s behind).
  await page.locator('tr[data-service="solo"][data-health="critical"]').waitFor({ timeout: 30000 });
  await pay.locator('.state-ejected').waitFor({ timeout: 30000 });
  await pay.locator('.state-held').first().waitFor({ timeout: 30000 });
  const soloHealth = await solo.locator('td.health-cell').innerText();
  check(soloHealth.includes('1 critical, held routable by the ejection cap'), `solo's health: ${soloHealth}`);
  check((await solo.locator('td.num').first().innerText()).includes('1 only by the cap'), 'solo is not a plain 1 / 1');
  check(await solo.getByRole('meter', { name: 'solo effective weight' }).locator('.track.held').count() === 1,
    'solo\'s weight bar is not drawn green');
  const payHealth = await pay.locator('td.health-cell').innerText();
  check(payHealth.includes('1 critical, held routable') && payHealth.includes('1 ejected'), `pay's health: ${payHealth}`);
  check(await page.locator(`tr[data-service="${service}"]`).getAttribute('data-health') === 'degraded',
    'shop, with c drained, is degraded');
  await shot('10', 'health-overview');

  step = '11 a service page says where the ejection cap holds a CRITICAL instance routable';
  await pay.getByRole('link', { name: 'pay' }).click();
  await row('h1').waitFor();
  check(await row('h1').getAttribute('data-state') === 'held', 'h1 is held by the cap');
  const held = await row('h1').locator('.health').innerText();
  check(held.includes('CRITICAL') && held.includes('lease expired') && held.includes('its lease ran out at')
    && held.includes('The ejection cap holds it routable'), `h1's health: ${held}`);
  check(!/\d{4}-\d\d-\d\dT/.test(held), `the lease's end in local time, not UTC: ${held}`);
  check(await figure('h1', 'effective').textContent() === '100', 'h1 keeps its effective weight');
  check(await row('e1').getAttribute('data-state') === 'ejected', 'e1 expired and ejected');
  check((await row('e1').locator('.health').innerText()).includes('ejected (lease expired)'), 'e1 says why it is out');
  await page.locator('#critical-causes', { hasText: 'h1: lease expired, held routable' }).waitFor();
  await page.locator('#ejection', { hasText: '1 critical held routable by the cap' }).waitFor();
  const expireRow = page.locator('table.audit tr[data-action="instance.expire"]', { hasText: 'h1' });
  await expireRow.waitFor();
  const expireChange = await expireRow.locator('td.change').innerText();
  check(expireChange.includes('health PASSING → CRITICAL') && expireChange.includes('held routable by the ejection cap'),
    `the instance.expire row says what changed: ${expireChange}`);
  await noStrayText();
  await shot('11', 'held-by-cap', { fullPage: true });

  step = '12 a drain that waits for a subscriber says for whom and until when';
  await open('#/services/cart');
  await row('c1').waitFor();
  await row('c1').getByRole('button', { name: 'Drain c1' }).click();
  await page.getByLabel('Ramp duration (seconds)').fill('0');
  const drainAnswer = page.waitForResponse((r) => r.url().endsWith('/v1/services/cart/instances/c1/drain'));
  await page.getByRole('button', { name: 'Drain', exact: true }).click();
  const answered = await (await drainAnswer).json();
  check(JSON.stringify(answered.unconfirmedSubscribers) === '["lb-edge"]' && answered.modeUntil,
    `the drain's answer says what it waits for: ${JSON.stringify(answered)}`);
  await page.locator('#status', { hasText: 'waits for lb-edge to confirm weight 0' }).waitFor();
  const wait = row('c1').locator('.wait');
  await wait.waitFor();
  const waitText = await wait.innerText();
  check(waitText.includes('lb-edge') && waitText.includes('at the latest'), `c1's wait: ${waitText}`);
  check(await row('c1').getAttribute('data-mode') === 'DRAINING', 'c1 stays DRAINING while it waits');
  await shot('12', 'drain-waits');

  step = '13 deregister an instance, confirmed in a dialog that says what capacity leaves';
  await row('c3').getByRole('button', { name: 'Deregister c3' }).click();
  const intro = await page.locator('#deregister-intro').innerText();
  for (const expected of ['weight 100, 33.3% of the nominal weight 300', 'not guarded', 'from 33.3%', 'about 66.7%']) {
    check(intro.includes(expected), `the deregistration dialog says ${expected}: ${intro}`);
  }
  await shot('13', 'deregister');
  await dialog.getByRole('button', { name: 'Deregister' }).click();
  await row('c3').waitFor({ state: 'detached' });
  // As in step 05: the watch stream may remove the row before the DELETE's answer closes
  // the dialog.
  check(await dialog.waitFor({ state: 'hidden', timeout: 5000 }).then(() => true, () => false), 'the dialog closed');

  step = '14 settings: a refused value shown at its field, then saved; the dialog by keyboard';
  const settingsButton = page.locator('#settings-button');
  await settingsButton.focus();
  await page.keyboard.press('Enter');
  await dialog.waitFor();
  check(await inDialog(), 'the focus moved into the dialog');
  for (let i = 0; i < 14; i++) {
    await page.keyboard.press('Tab');
    check(await inDialog(), `Tab ${i + 1} kept the focus in the dialog`);
  }
  await page.keyboard.press('Shift+Tab');
  check(await inDialog(), 'Shift+Tab kept the focus in the dialog');
  await page.getByLabel('Lease TTL (seconds)').fill('60');
  await page.getByLabel('Guard budget (maxUnroutable)').fill('lots');
  await page.getByRole('button', { name: 'Save settings' }).click();
  const budgetError = page.locator('#f-maxUnroutable-error');
  await budgetError.waitFor();
  check((await budgetError.innerText()).includes('maxUnroutable must be'), 'the refusal is at its field');
  check(await page.getByLabel('Guard budget (maxUnroutable)').getAttribute('aria-invalid') === 'true',
    'the field is marked invalid');
  check(await page.locator('#f-leaseTtlSeconds-error').isHidden(), 'no error at the fields that were fine');
  await shot('14', 'settings-refused');
  await page.getByLabel('Guard budget (maxUnroutable)').fill('1');
  await page.getByLabel('Locality').selectOption('PREFER_LOCAL');
  await page.getByLabel(/Most of a zone's traffic/).fill('30');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.locator('#settings', { hasText: '60 s' }).waitFor();
  await page.locator('#settings', { hasText: 'limit maxUnroutable 1' }).waitFor();
  await page.locator('#locality', { hasText: 'at most 30%' }).waitFor();
  const settingsNow = JSON.parse(curl('GET', '/v1/services/cart'));
  check(settingsNow.leaseTtlSeconds === 60 && settingsNow.maxUnroutable === '1'
    && settingsNow.locality?.maxCrossZonePercent === 30, `the settings were saved: ${JSON.stringify(settingsNow)}`);
  await settingsButton.focus();
  await page.keyboard.press('Enter');
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  check(await page.evaluate(() => document.activeElement?.id) === 'settings-button', 'Escape gave the focus back');
  await shot('15', 'settings-saved');

  step = '16 each zone\'s routable share and the share of its traffic crossing zones';
  await open('#/services/zoned');
  const za = page.locator('table.zones tr[data-zone="za"]');
  const zb = page.locator('table.zones tr[data-zone="zb"]');
  await za.waitFor();
  const flash = await page.locator('#status').textContent();
  check(flash === '', `the message said on cart's page is not shown on zoned's: ${flash}`);
  // za: 100 of 300 routable, so it spills, at most its cap of 20%; zb keeps its traffic.
  await za.locator('.routable-share [role=meter][aria-valuenow="33.3"]').waitFor();
  await za.locator('.cross-share [role=meter][aria-valuenow="20"]').waitFor();
  await zb.locator('.routable-share [role=meter][aria-valuenow="100"]').waitFor();
  await zb.locator('.cross-share [role=meter][aria-valuenow="0"]').waitFor();
  await noStrayText();
  await shot('16', 'zones');

  step = '22 a probe-failed instance: its cause in its row and the header, the check\'s output on its page';
  await open('#/services/probed');
  await page.locator('tr[data-instance="down"][data-state="ejected"], tr[data-instance="down"][data-state="held"]')
    .waitFor({ timeout: 30000 });
  const downHealth = await row('down').locator('.health').innerText();
  check(downHealth.includes('check failing') && downHealth.includes('a check the registry runs on it fails')
    && !downHealth.includes('lease ran out'), `down's health names its failing check: ${downHealth}`);
  check((await row('down').locator('td.lease').innerText()).startsWith('in '), 'down\'s lease still runs');
  await page.locator('#critical-causes', { hasText: 'down: check failing' }).waitFor();
  await shot('22', 'probe-failed');
  await row('down').getByRole('link', { name: /^Instance down/ }).click();
  const failedCheck = page.locator('table.checks tr[data-status="critical"]');
  await failedCheck.waitFor();
  const checkText = await failedCheck.innerText();
  check(checkText.includes('service:down:1') && checkText.includes('HTTP') && /connection refused/i.test(checkText),
    `the check shows its output: ${checkText}`);
  check((await page.locator('#instance-cause').innerText()).includes('check-failing'), 'the page names the cause');
  await page.locator('#instance-prober', { hasText: 'Probed by' }).waitFor();
  await noStrayText();
  await shot('23', 'instance-checks', { fullPage: true });

  step = '24 cart\'s subscribers: lb-edge, its position and that it never acknowledged';
  await open('#/services/cart');
  await row('c1').waitFor();
  await page.getByRole('link', { name: 'Subscribers' }).click();
  const edge = page.locator('table.subscribers tr[data-subscriber="lb-edge"]');
  await edge.waitFor();
  const edgeText = await edge.innerText();
  check(edgeText.includes('none yet') && /revision \d+/.test(edgeText), `lb-edge's row: ${edgeText}`);
  check(Number(await edge.locator('td.lag').innerText()) > 0, 'lb-edge lags: it never acknowledged');
  await noStrayText();
  await shot('24', 'subscribers');

  step = '25 the nodes: this one alive, the checks it probes, its lease-writer position';
  await page.getByRole('link', { name: 'Nodes' }).click();
  const self = page.locator('table.nodes tr', { hasText: 'this node' });
  await self.waitFor();
  await self.locator('text=heartbeats written through').waitFor({ timeout: 15000 });
  check(await self.getAttribute('data-alive') === 'true', 'this node is alive');
  await self.locator('summary').click();
  await self.locator('ul.probing li', { hasText: 'probed/down' }).waitFor();
  await noStrayText();
  await shot('25', 'nodes');

  step = '26 edit an instance\'s metadata and tags, through the one write path (If-Match, audit)';
  await open(`#/services/${service}`);
  await row('a').waitFor();
  await row('a').getByRole('button', { name: 'Edit the metadata and tags of a' }).click();
  await page.getByLabel('Tags', { exact: true }).fill('v1, edge');
  await page.getByLabel('Metadata (one key=value a line)').fill('version=1.4.9\nowner=team-a');
  await page.getByRole('button', { name: 'Save labels' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.waitForFunction(() => document.querySelector('tr[data-instance="a"] td.tags')?.innerText.includes('edge'));
  const labelled = JSON.parse(curl('GET', `/v1/services/${service}/instances/a`));
  check(JSON.stringify(labelled.metadata) === '{"owner":"team-a","version":"1.4.9"}'
    && JSON.stringify(labelled.tags) === '["v1","edge"]', `the labels were saved: ${JSON.stringify(labelled)}`);
  await page.locator('table.audit tr[data-action="instance.edit"]', { hasText: 'a' }).first().waitFor();
  await row('a').locator('summary', { hasText: '2 keys' }).click();
  await shot('26', 'labels-edited');

  step = '17 find instances across services by tag and by address';
  await page.getByLabel('Find instances by id, address or tag').fill('canary');
  await page.keyboard.press('Enter');
  await page.locator('#search-status', { hasText: 'found in' }).waitFor();
  const found = await page.locator('#search-results tbody tr')
    .evaluateAll((rows) => rows.map((r) => `${r.dataset.service}/${r.dataset.instance}`).sort());
  check(JSON.stringify(found) === '["pay/p1","shop/d"]', `canary finds pay/p1 and shop/d: ${found}`);
  await shot('17', 'search');
  await page.getByLabel('Find instances by id, address or tag').fill('10.0.0.3');
  await page.keyboard.press('Enter');
  await page.locator('#search-status', { hasText: '1 found in' }).waitFor();
  await page.locator('#search-results tr[data-instance="c"][data-matched="address"]').getByRole('link', { name: 'c' }).click();
  await page.locator('tr.found[data-instance="c"]').waitFor();
  check(new URL(page.url()).hash === '#/services/shop?instance=c', `the result opens its service: ${page.url()}`);

  step = '18 the audit log across services, filtered';
  await page.getByRole('link', { name: 'Audit' }).click();
  // The service page just left has an audit table of its own (its trail): read only the
  // audit page's, whose rows of one page are appended at once.
  const auditPage = page.locator('section[aria-labelledby="audit-page-title"]');
  const auditRows = auditPage.locator('table.audit tbody tr');
  await auditRows.first().waitFor();
  const servicesSeen = new Set(await auditRows.locator('td:nth-child(2)').allInnerTexts());
  check(['shop', 'pay', 'cart'].every((s) => servicesSeen.has(s)), `events of several services: ${[...servicesSeen]}`);
  await page.getByLabel('Service', { exact: true }).fill('cart');
  await page.getByLabel('Action', { exact: true }).selectOption('instance.deregister');
  // Applying draws the page anew; until then the unfiltered rows are still there.
  const unfiltered = await auditPage.elementHandle();
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForFunction((section) => !section.isConnected, unfiltered, { timeout: 10000 });
  await page.waitForFunction(() => location.hash.includes('service=cart'));
  await auditPage.locator('table.audit tbody tr[data-action="instance.deregister"]').first().waitFor();
  const filtered = await auditRows.evaluateAll((rows) => rows.map((r) => `${r.dataset.action} ${r.children[1].innerText}`));
  check(filtered.length === 1 && filtered[0] === 'instance.deregister cart', `one deregistration of cart: ${filtered}`);
  await shot('18', 'audit');

  step = '19 an admin creates a token, sees its secret once, and revokes it';
  await signInAs(process.env.ADMIN_TOKEN, 'admin');
  await page.getByRole('link', { name: 'Tokens' }).click();
  await page.getByRole('button', { name: 'Create a token…' }).click();
  await page.getByLabel('Name', { exact: true }).fill('e2e edge reader');
  await page.getByLabel('Role', { exact: true }).selectOption('reader');
  const nextYear = new Date(Date.now() + 365 * 86400000);
  await page.getByLabel('Expires (optional)').fill(`${nextYear.getFullYear()}-06-30T12:00`);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const secretField = page.locator('#token-secret');
  await secretField.waitFor();
  const secret = await secretField.inputValue();
  check(/^blst_/.test(secret), 'the secret is shown');
  check(statusWith(secret, '/v1/tokens/self') === '200', 'the new token works');
  await shot('19', 'token-secret');
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await dialog.waitFor({ state: 'hidden' });
  // The dialog's content is dropped by its close event, a task queued after it closes.
  await secretField.waitFor({ state: 'detached', timeout: 5000 }).catch(() => {});
  check(!(await page.content()).includes(secret), 'the secret is gone from the page once the dialog closed');
  const created = page.locator('table.tokens tr', { hasText: 'e2e edge reader' });
  await created.waitFor();
  check((await created.innerText()).includes(`${nextYear.getFullYear()}`), 'the list shows its expiry');
  await created.getByRole('button', { name: 'Revoke e2e edge reader' }).click();
  await dialog.getByRole('button', { name: 'Revoke' }).click();
  await created.waitFor({ state: 'detached' });
  check(statusWith(secret, '/v1/tokens/self') === '401', 'the revoked token is refused');
  // The bootstrap admin token goes too: the one signed in is then the last admin token,
  // which the registry would refuse to revoke, so the page does not offer it.
  const otherAdmin = page.locator('table.tokens tr:not(:has-text("(you)"))', { has: page.locator('[data-role="admin"]') });
  const otherName = (await otherAdmin.locator('th').innerText()).trim();
  await otherAdmin.getByRole('button', { name: `Revoke ${otherName}` }).click();
  await dialog.getByRole('button', { name: 'Revoke' }).click();
  await otherAdmin.waitFor({ state: 'detached' });
  const lastAdmin = page.locator('table.tokens tr', { hasText: '(you)' });
  await lastAdmin.locator('#last-admin').waitFor();
  check(await lastAdmin.getByRole('button', { name: /^Revoke/ }).count() === 0, 'the last admin token offers no Revoke');
  await shot('20', 'token-revoked');

  step = '21 a reader token sees no write controls';
  await signInAs(process.env.READER_TOKEN, 'reader');
  check(await page.getByRole('link', { name: 'Audit' }).isHidden() && await page.getByRole('link', { name: 'Tokens' }).isHidden(),
    'a reader is offered neither the audit log nor the tokens');
  let writeControls = 0;
  // A service page's rows carry their mode; the search results' rows (d among them) do not.
  for (const [hash, ready] of [['#/', 'tr[data-service="cart"]'], ['#/services/cart', 'tr[data-instance="c2"][data-mode]'],
    ['#/search?q=canary', '#search-status:has-text("found in")'], [`#/services/${service}`, 'tr[data-instance="d"][data-mode]']]) {
    await open(hash);
    await page.locator(ready).waitFor();
    writeControls += await page.locator('.write').count();
  }
  check(writeControls === 0, `a reader sees ${writeControls} write controls`);
  for (const name of ['Drain', 'Serve', 'Maintenance', 'Weight', 'Deregister', 'Settings…', 'Advance', 'Abort',
    'Start a release', 'History']) {
    check(await page.getByRole('button', { name }).count() === 0, `a reader sees a ${name} button`);
  }
  check(await page.locator('#audit-title').count() === 0, 'a reader sees no audit trail');
  await noStrayText();
  await shot('21', 'reader');

  step = 'the tokens never in a URL, no script errors';
  const secrets = [process.env.OPERATOR_TOKEN, process.env.READER_TOKEN, process.env.ADMIN_TOKEN, secret];
  const leaked = urls.filter((url) => secrets.some((s) => url.includes(s)));
  check(leaked.length === 0, `a token went into a URL: ${leaked[0]}`);
  check(problems.length === 0, problems.join('; '));
  // The guard's refusal and the two refused settings are the refused calls the run makes.
  const unexpected = refused.filter((line) => line !== 'POST /v1/services/shop/instances/b/drain 409'
    && line !== 'PATCH /v1/services/shop 422' && line !== 'PATCH /v1/services/cart 422');
  check(unexpected.length === 0, `refused calls: ${unexpected.join(', ')}`);
  const allCode = [...code.values()].reduce((a, b) => a + b, 0);

  console.log(`screenshots:\n${saved.map((path) => `  ${path}`).join('\n')}`);
  console.log(`console e2e PASS: first load ${signInBytes} bytes (sign-in page), ${overviewBytes} bytes in `
    + `${overviewRequests} requests to the overview, ${serviceBytes} to a service page, every page's files `
    + `${allCode} bytes in ${code.size}; `
    + `curl edit shown live in ${liveMs} ms; drain bar at 0 in ${drainMs} ms; reader write controls 0; `
    + `${saved.length} screenshots in ${shots}; ${Math.round((Date.now() - started) / 1000)} s`);
} catch (error) {
  await page.screenshot({ path: `${shots}/failed.png` }).catch(() => {});
  console.error(`console e2e: FAIL at step "${step}": ${error.message}`);
  process.exitCode = 1;
} finally {
  await context.close();
}
