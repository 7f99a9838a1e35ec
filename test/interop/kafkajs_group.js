// node kafkajs_group.js BOOTSTRAP TOPIC GROUP
// A kafkajs consumer group: one member reads batch A (eachMessage, offsets
// committed by kafkajs), a second member joins and the group rebalances to
// split the 4 partitions, the pair reads batch B; both leave, the group's
// committed offsets equal the log ends; a restarted member reads batch C
// and nothing committed before. Prints a "note: " line and exits 0.
const { Kafka, Partitioners, logLevel } = require('kafkajs');

const WAIT_MS = 30000;
const PARTS = 4;

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

async function until(what, cond) {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > WAIT_MS) throw new Error(`timed out: ${what}`);
    await sleep(50);
  }
  return Date.now() - t0;
}

async function main() {
  const [bootstrap, topic, groupId] = process.argv.slice(2);
  const kafka = new Kafka({
    clientId: 'logrep-interop', brokers: bootstrap.split(','),
    logLevel: logLevel.WARN, retry: { retries: 10, initialRetryTime: 200 },
    connectionTimeout: 5000, requestTimeout: 30000,
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: PARTS, replicationFactor: 3 }], waitForLeaders: true });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const produce = async (tag, n) => {
    const messages = [];
    for (let i = 0; i < n; i++) messages.push({ partition: i % PARTS, value: `${tag}-${i}` });
    await producer.send({ topic, acks: -1, messages });
  };

  // Every value each member read, and its latest assignment.
  const members = {};
  const member = async (name) => {
    const m = { name, seen: [], assigned: null, joins: 0 };
    // Short fetch waits: kafkajs heartbeats (and so learns of a rebalance)
    // between fetches.
    m.consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 500,
      rebalanceTimeout: 10000, maxWaitTimeInMs: 500,
      retry: { retries: 10, initialRetryTime: 200 } });
    m.consumer.on(m.consumer.events.GROUP_JOIN, (e) => {
      m.assigned = (e.payload.memberAssignment[topic] || []).slice().sort();
      m.joins++;
    });
    await m.consumer.connect();
    await m.consumer.subscribe({ topics: [topic], fromBeginning: true });
    await m.consumer.run({ eachMessage: async ({ message }) => { m.seen.push(message.value.toString()); } });
    members[name] = m;
    return m;
  };
  const covered = (tag, n, ms) => {
    const got = new Set();
    for (const m of ms) for (const v of m.seen) if (v.startsWith(`${tag}-`)) got.add(v);
    return got.size === n;
  };

  await produce('a', 200);
  const c1 = await member('c1');
  await until('c1 reads batch A', () => covered('a', 200, [c1]));

  const joinsBefore = c1.joins;
  const t0 = Date.now();
  const c2 = await member('c2');
  await until('c1 and c2 split the partitions', () => {
    if (c1.joins === joinsBefore || !c2.assigned || !c1.assigned) return false;
    const all = c1.assigned.concat(c2.assigned);
    return c1.assigned.length > 0 && c2.assigned.length > 0 &&
      all.length === PARTS && new Set(all).size === PARTS;
  });
  const tRebalance = Date.now() - t0;
  const split = `c1 ${c1.assigned.join(',')} / c2 ${c2.assigned.join(',')}`;
  await produce('b', 200);
  await until('c1 and c2 read batch B', () => covered('b', 200, [c1, c2]));
  const bBy = (m) => m.seen.filter((v) => v.startsWith('b-')).length;
  if (bBy(c1) === 0 || bBy(c2) === 0) throw new Error(`batch B read by c1 ${bBy(c1)}, c2 ${bBy(c2)}`);
  await c1.consumer.disconnect();
  await c2.consumer.disconnect();

  // Committed offsets are the log ends: all of A and B.
  const ends = await admin.fetchTopicOffsets(topic);
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  for (const e of ends) {
    const c = committed.partitions.find((p) => p.partition === e.partition);
    if (!c || c.offset !== e.high) throw new Error(`partition ${e.partition}: committed ${c && c.offset}, end ${e.high}`);
  }

  await produce('c', 100);
  const c3 = await member('c3');
  await until('the restarted group reads batch C', () => covered('c', 100, [c3]));
  await sleep(500);
  const old = c3.seen.filter((v) => !v.startsWith('c-'));
  if (old.length) throw new Error(`the restarted group read ${old.length} committed records (${old[0]})`);
  await c3.consumer.disconnect();
  await producer.disconnect();
  await admin.disconnect();
  console.log(`note: ${split} ${tRebalance} ms after c2 started; ` +
    `batch B ${bBy(c1)}+${bBy(c2)}; restart read ${c3.seen.length}`);
}

main().then(() => process.exit(0)).catch((e) => { console.error(`kafkajs group failed: ${e.stack || e}`); process.exit(1); });
