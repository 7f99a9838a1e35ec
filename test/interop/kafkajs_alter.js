// node kafkajs_alter.js BOOTSTRAP TOPIC
// kafkajs admin.alterConfigs (AlterConfigs) on a new topic: sets
// cleanup.policy=compact,delete, reads it back with describeConfigs, then
// checks an invalid value is refused with INVALID_CONFIG. Prints
// "kafkajs alter ok" and exits 0.
const { Kafka, ConfigResourceTypes, logLevel } = require('kafkajs');

async function describe(admin, topic, name) {
  const d = await admin.describeConfigs({ includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: [name] }] });
  const e = d.resources[0].configEntries.find((c) => c.configName === name);
  return e && e.configValue;
}

async function main() {
  const [bootstrap, topic] = process.argv.slice(2);
  const kafka = new Kafka({ clientId: 'logrep-interop', brokers: bootstrap.split(','),
    logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 200 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
  await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC,
    name: topic, configEntries: [{ name: 'cleanup.policy', value: 'compact,delete' }] }] });
  let v;
  for (let i = 0; i < 20 && v !== 'compact,delete'; i++) {
    v = await describe(admin, topic, 'cleanup.policy');
    if (v !== 'compact,delete') await new Promise((r) => setTimeout(r, 200));
  }
  if (v !== 'compact,delete') throw new Error(`cleanup.policy is ${v}`);
  let refused = false;
  try {
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC,
      name: topic, configEntries: [{ name: 'cleanup.policy', value: 'shred' }] }] });
  } catch (e) {
    refused = /INVALID_CONFIG|invalid/i.test(`${e.type} ${e.message}`);
    if (!refused) throw e;
  }
  if (!refused) throw new Error('cleanup.policy=shred accepted');
  await admin.disconnect();
  console.log('kafkajs alter ok');
}

main().catch((e) => { console.error(`kafkajs alter failed: ${e.message}`); process.exit(1); });
