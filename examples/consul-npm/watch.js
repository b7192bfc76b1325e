// The npm `consul` client (2.0.x), unmodified, against Ballast's Consul-compatible API:
// it registers three instances with TTL checks, tags and Meta.weight, passes their
// checks, filters on tags (`tag`, several of them, the catalog's tag list, a watch on a
// tag that a re-registration adds), and watches the service with blocking queries (its
// `watch` helper), while Ballast's own API edits a weight and drains an instance and one
// check fails and passes again. Ballast answers as the one agent: the client's own agent
// reads (agent.service.list, agent.check.list, and GET /v1/agent/service/{id} through its
// request machinery) list what it registered, with the cause of a failing check.
// Every wait is bounded; any failed expectation exits non-zero. The last line is
// "consul-npm e2e PASS: <figures>".
//
// Environment: BALLAST_HOST, BALLAST_PORT, REGISTRANT_TOKEN (registrant for npm-*),
// READER_TOKEN, OPERATOR_TOKEN (for Ballast's own API).
"use strict";

const Consul = require("consul");
const utils = require("consul/lib/utils");

const host = process.env.BALLAST_HOST || "127.0.0.1";
const port = Number(process.env.BALLAST_PORT || 8080);
const base = `http://${host}:${port}`;
const service = "npm-demo";
const weights = { a: 300, b: 200, c: 100 };
const tags = { a: ["v2", "blue"], b: ["v2"], c: ["v1"] };
// What the main watch may see of each instance's tags: b's before and after it is re-tagged.
const seenTags = Object.fromEntries(Object.entries(tags).map(([name, list]) => [name, [JSON.stringify(list)]]));
const id = (name) => `${name}.${service}`;

// The token travels as Consul's clients send it: X-Consul-Token.
const registrant = new Consul({ host, port, defaults: { token: process.env.REGISTRANT_TOKEN, timeout: 10000 } });
const reader = new Consul({ host, port, defaults: { token: process.env.READER_TOKEN, timeout: 10000 } });

const began = Date.now();
const figures = { passes: 0, changes: 0, watchErrors: 0, tagQueries: 0, agentReads: 0 };
let latest = null; // { index, weights: {id: n} }

function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

function log(message) {
  console.log(`== [${((Date.now() - began) / 1000).toFixed(1)} s] ${message}`);
}

async function until(what, predicate, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (latest && predicate(latest.weights)) return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const shown = JSON.stringify(latest, (key, value) => (typeof value === "bigint" ? value.toString() : value));
  fail(`${what} not seen within ${timeoutMs} ms; last seen ${shown}`);
}

async function ballast(method, path, body) {
  const response = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${process.env.OPERATOR_TOKEN}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10000),
  });
  if (response.status >= 300) fail(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

function record(entries, res) {
  const index = BigInt(res.headers["x-consul-index"]);
  const seen = {};
  for (const entry of entries) {
    const passing = entry.Service.Weights.Passing;
    const name = entry.Service.ID.split(".")[0];
    if (!seenTags[name].includes(JSON.stringify(entry.Service.Tags))) fail(`Tags ${JSON.stringify(entry.Service.Tags)} of ${entry.Service.ID}, registered ${seenTags[name]}`);
    if (!Number.isInteger(passing) || passing < 1) fail(`Weights.Passing ${JSON.stringify(passing)} in ${JSON.stringify(entry)}`);
    if (entry.Service.Meta.weight !== String(passing)) fail(`Meta.weight ${entry.Service.Meta.weight} != Weights.Passing ${passing}`);
    if (entry.Checks.length < 1 || entry.Checks[0].CheckID !== `service:${entry.Service.ID}`) fail(`checks ${JSON.stringify(entry.Checks)}`);
    seen[entry.Service.ID] = passing;
  }
  if (latest && index < latest.index) fail(`X-Consul-Index went backwards: ${latest.index} then ${index}`);
  latest = { index, weights: seen };
  figures.changes++;
}

// GET /v1/agent/service/{id}, which the client has no method for, sent through its own
// request machinery (its defaults, token and error handling), as its methods send theirs.
async function agentService(client, serviceId) {
  const req = { name: "agent.service.info", path: "/agent/service/{id}", params: { id: serviceId } };
  utils.options(req, utils.defaults({}, client._defaults));
  return client._get(req, utils.body);
}

async function main() {
  const leader = await reader.status.leader();
  const self = await reader.agent.self();
  log(`leader ${leader}, datacenter ${self.Config.Datacenter}`);

  for (const [name, weight] of Object.entries(weights)) {
    await registrant.agent.service.register({
      id: id(name),
      name: service,
      address: "127.0.0.1",
      port: 9000 + weight,
      tags: tags[name],
      meta: { weight: String(weight), version: "1" },
      check: { ttl: "10s", deregistercriticalserviceafter: "1m", notes: "passed by watch.js" },
    });
  }
  log("registered a, b, c with Meta.weight 300, 200, 100, tags v2+blue, v2, v1 and a 10s TTL check each");

  let started;
  const quiet = new Set(); // instances whose check state the steps below set themselves
  const heartbeat = setInterval(() => {
    for (const name of Object.keys(weights)) {
      if (quiet.has(name)) continue;
      registrant.agent.check
        .pass({ id: `service:${id(name)}`, note: "alive" })
        .then(() => figures.passes++)
        .catch((err) => {
          // c is deregistered at the end: its pass may race that.
          if (!String(err).includes("Unknown check")) fail(`check pass of ${name}: ${err}`);
        });
    }
  }, 3000);

  const watch = reader.watch({
    method: reader.health.service,
    options: { service, passing: true, wait: "5s" },
    backoffFactor: 100,
    backoffMax: 1000,
  });
  watch.on("change", (entries, res) => record(entries, res));
  watch.on("error", (err) => {
    figures.watchErrors++;
    log(`watch error: ${err}`);
  });

  await until("the three weights", (w) => w[id("a")] === 300 && w[id("b")] === 200 && w[id("c")] === 100, 10000);
  log(`watch sees ${JSON.stringify(latest.weights)} at index ${latest.index}`);

  // The agent's own reads: what Consul tools list before they register, deregister or check.
  const agentServices = await reader.agent.service.list();
  const agentChecks = await reader.agent.check.list();
  for (const [name, weight] of Object.entries(weights)) {
    const listed = agentServices[id(name)];
    if (!listed || listed.Service !== service || listed.Port !== 9000 + weight || listed.Weights.Passing !== weight ||
      listed.Meta.weight !== String(weight) || JSON.stringify(listed.Tags) !== JSON.stringify(tags[name])) {
      fail(`agent.service.list's ${id(name)}: ${JSON.stringify(listed)}`);
    }
    const check = agentChecks[`service:${id(name)}`];
    if (!check || check.Status !== "passing" || check.ServiceID !== id(name) || check.Type !== "ttl") {
      fail(`agent.check.list's service:${id(name)}: ${JSON.stringify(check)}`);
    }
  }
  const one = await agentService(reader, id("a"));
  if (JSON.stringify(one) !== JSON.stringify(agentServices[id("a")])) fail(`agent service ${id("a")}: ${JSON.stringify(one)}`);
  const missing = await agentService(reader, `nobody.${service}`).then(() => null).catch((err) => err);
  if (!missing || missing.response.statusCode !== 404) fail(`agent service of an unknown id: ${missing}`);
  figures.agentReads = 4;
  log(`agent.service.list, agent.check.list and /v1/agent/service/${id("a")} list a, b, c as registered`);

  // Tags: the client's `tag` option (an array becomes several tag parameters, which must all match).
  const ids = (entries) => entries.map((entry) => entry.Service?.ID ?? entry.ServiceID).sort().join(",");
  const expectIds = async (what, call, expected) => {
    const got = ids(await call);
    figures.tagQueries++;
    if (got !== expected.map(id).join(",")) fail(`${what}: got ${got}, expected ${expected.map(id).join(",")}`);
  };
  await expectIds("health tag v2", reader.health.service({ service, tag: "v2" }), ["a", "b"]);
  await expectIds("health tags v2 and BLUE", reader.health.service({ service, tag: ["v2", "BLUE"] }), ["a"]);
  await expectIds("catalog tag v1", reader.catalog.service.nodes({ service, tag: "v1" }), ["c"]);
  await expectIds("health tags v1 and v2", reader.health.service({ service, tag: ["v1", "v2"] }), []);
  const catalogTags = (await reader.catalog.service.list())[service];
  figures.tagQueries++;
  if (JSON.stringify(catalogTags) !== JSON.stringify(["blue", "v1", "v2"])) fail(`catalog services tags ${JSON.stringify(catalogTags)}`);

  // A watch on a tag sees an instance join when a re-registration adds the tag.
  let blue = null;
  const blueWatch = reader.watch({
    method: reader.health.service,
    options: { service, tag: "blue", wait: "5s" },
    backoffFactor: 100,
    backoffMax: 1000,
  });
  blueWatch.on("change", (entries) => (blue = ids(entries)));
  blueWatch.on("error", (err) => fail(`blue watch: ${err}`));
  const blueDeadline = Date.now() + 10000;
  while (blue !== id("a") && Date.now() < blueDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
  if (blue !== id("a")) fail(`the blue watch saw ${blue}, expected ${id("a")}`);
  tags.b = ["v2", "blue"];
  seenTags.b.push(JSON.stringify(tags.b));
  started = Date.now();
  await registrant.agent.service.register({
    id: id("b"), name: service, address: "127.0.0.1", port: 9200, tags: tags.b,
    meta: { weight: "200", version: "1" }, check: { ttl: "10s" },
  });
  while (blue !== [id("a"), id("b")].join(",") && Date.now() < blueDeadline + 10000) await new Promise((resolve) => setTimeout(resolve, 20));
  if (blue !== [id("a"), id("b")].join(",")) fail(`the blue watch saw ${blue} after b was tagged blue`);
  const tagSeen = Date.now() - started;
  blueWatch.end();
  log(`tag queries answered as Consul would (${figures.tagQueries}); the blue watch saw b join ${tagSeen} ms after its re-registration`);

  started = Date.now();
  await ballast("PATCH", `/v1/services/${service}/instances/${id("a")}`, { weight: 500 });
  const editSeen = (await until("a's weight edit to 500", (w) => w[id("a")] === 500, 10000)) - started;
  log(`a's weight edit to 500 seen after ${editSeen} ms`);

  const drainSteps = [];
  const stepWatch = setInterval(() => {
    const w = latest.weights[id("c")];
    if (w !== undefined && drainSteps[drainSteps.length - 1] !== w) drainSteps.push(w);
  }, 10);
  started = Date.now();
  await ballast("POST", `/v1/services/${service}/instances/${id("c")}/drain`, { durationSeconds: 4 });
  const drainSeen = (await until("c drained out of the answers", (w) => !(id("c") in w), 15000)) - started;
  clearInterval(stepWatch);
  if (drainSteps.length < 2 || drainSteps.some((w, i) => i > 0 && w > drainSteps[i - 1])) fail(`drain steps ${drainSteps}`);
  log(`c's drain seen in ${drainSteps.length} steps (${drainSteps.join(" > ")}), gone after ${drainSeen} ms`);

  // a (500) and b (200) serve; c (100) is drained but registered, so 100 of the base 800
  // is out already. The ejection cap (maxEjectionPercent, default 20: 160 of 800) counts
  // it as the guard does: b's failing check is held, b stays listed (its check critical)
  // rather than taking 300 of 800 out. With the cap raised to 50%, the next failing
  // report ejects b; a pass brings it back.
  quiet.add("b");
  await registrant.agent.check.fail({ id: `service:${id("b")}`, note: "failing on purpose" });
  const heldIds = ids(await reader.health.service({ service, passing: true }));
  const bCheck = (await reader.health.checks(service)).find((check) => check.ServiceID === id("b"));
  if (!heldIds.split(",").includes(id("b")) || !bCheck || bCheck.Status !== "critical") {
    fail(`b's failing check was not held by the ejection cap: listed ${heldIds}, check ${JSON.stringify(bCheck)}`);
  }
  log(`b's failing check held by the ejection cap (c's drain counts): listed, ${bCheck.Status}, "${bCheck.Output}"`);
  await ballast("PATCH", `/v1/services/${service}`, { maxEjectionPercent: 50 });
  started = Date.now();
  await registrant.agent.check.fail({ id: `service:${id("b")}`, note: "failing on purpose" });
  const failSeen = (await until("b's failing check", (w) => !(id("b") in w), 10000)) - started;
  const failedCheck = (await reader.agent.check.list())[`service:${id("b")}`];
  if (failedCheck?.Status !== "critical" || !failedCheck.Output.includes("it reported itself critical")) {
    fail(`agent.check.list's failing check of b: ${JSON.stringify(failedCheck)}`);
  }
  if (id("b") in (await reader.agent.service.list())) fail("agent.service.list lists b while it is ejected");
  figures.agentReads += 2;
  started = Date.now();
  await registrant.agent.check.pass({ id: `service:${id("b")}` });
  quiet.delete("b");
  const passSeen = (await until("b passing again", (w) => w[id("b")] === 200, 10000)) - started;
  log(`with maxEjectionPercent 50, b left the answers ${failSeen} ms after its check failed and came back ${passSeen} ms after it passed`);

  const maintenanceRefusal = await registrant.agent.service
    .maintenance({ id: id("a"), enable: true, reason: "would take most of the weight" })
    .then(() => null)
    .catch((err) => err);
  if (!maintenanceRefusal || maintenanceRefusal.response.statusCode !== 409) fail(`maintenance of a was not refused by the guard: ${maintenanceRefusal}`);
  log(`maintenance of a refused by Ballast's guard: 409 ${String(maintenanceRefusal.message).slice(0, 80)}`);

  clearInterval(heartbeat);
  for (const name of Object.keys(weights)) {
    await registrant.agent.service.deregister(id(name));
  }
  await until("an empty service", (w) => Object.keys(w).length === 0, 10000);
  const left = Object.keys(await reader.agent.service.list()).filter((key) => key.endsWith(`.${service}`));
  const leftChecks = Object.keys(await reader.agent.check.list()).filter((key) => key.endsWith(`.${service}`));
  if (left.length || leftChecks.length) fail(`after deregistration the agent still lists ${left} ${leftChecks}`);
  figures.agentReads += 2;
  watch.end();
  if (figures.watchErrors > 0) fail(`${figures.watchErrors} watch errors`);
  if (figures.passes < 3) fail(`only ${figures.passes} check passes`);

  console.log(
    `consul-npm e2e PASS: 3 registered, ${figures.passes} TTL passes, ${figures.changes} watch answers, ` +
      `${figures.tagQueries} tag queries, tag watch saw a re-tag after ${tagSeen} ms, ` +
      `weight edit seen after ${editSeen} ms, drain seen in ${drainSteps.length} steps and gone after ${drainSeen} ms, ` +
      `a failing check held by the cap, then (at 50%) fail/pass seen after ${failSeen}/${passSeen} ms, guard refused maintenance, ${figures.agentReads} agent reads, ` +
      `final index ${latest.index}, 0 watch errors, ${((Date.now() - began) / 1000).toFixed(1)} s`,
  );
  process.exit(0);
}

setTimeout(() => fail("watch.js ran over 120 s"), 120000).unref();
main().catch((err) => fail(err && err.stack ? err.stack : String(err)));
