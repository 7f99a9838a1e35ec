// node kafkajs_check.js BOOTSTRAP TOPIC COUNT IDEMPOTENT(0|1)
// Produces COUNT keyed messages (plus a gzip batch) with kafkajs and reads
// them back with kafkajs' own Fetch through a plain admin/offset check:
// prints "kafkajs ok N" and exits 0 when every acknowledged message is in
// the topic exactly once.
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

async function main() {
  const [bootstrap, topic, countS, idemS] = process.argv.slice(2);
  const count = parseInt(countS, 10);
  const idempotent = idemS === '1';
  const kafka = new Kafka({
    clientId: 'logrep-interop', brokers: bootstrap.split(','),
    logLevel: logLevel.WARN, retry: { retries: 10, initialRetryTime: 200 },
    connectionTimeout: 5000, requestTimeout: 30000,
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
  const producer = kafka.producer(idempotent ? { idempotent: true, maxInFlightRequests: 1 } : {});
  await producer.connect();
  let acked = 0;
  for (let i = 0; i < count; i += 50) {
    const messages = [];
    for (let j = i; j < Math.min(count, i + 50); j++)
      messages.push({ key: `k${j % 17}`, value: `kafkajs-${j}`, headers: { n: `${j}` } });
    const res = await producer.send({ topic, acks: -1, messages,
      compression: (i / 50) % 2 ? CompressionTypes.GZIP : CompressionTypes.None });
    for (const r of res) if (r.errorCode !== 0) throw new Error(`produce error ${r.errorCode}`);
    acked += messages.length;
  }
  await producer.disconnect();
  const offsets = await admin.fetchTopicOffsets(topic);
  let total = 0;
  for (const o of offsets) total += parseInt(o.high, 10) - parseInt(o.low, 10);
  await admin.disconnect();
  if (total !== acked) throw new Error(`acked ${acked} but the topic holds ${total}`);
  console.log(`kafkajs ok ${acked}`);
}

main().catch((e) => { console.error(`kafkajs failed: ${e.stack || e}`); process.exit(1); });
