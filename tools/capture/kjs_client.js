#!/usr/bin/env node
// kjs_client: kafkajs 2.2.4 producer/consumer used to generate golden vectors
// through tools/capture/kafka_capture.py. Maintainer tool.
//
//   node kjs_client.js metadata BOOT
//   node kjs_client.js produce BOOT TOPIC none|gzip [idempotent]
//   node kjs_client.js keyed BOOT TOPIC NKEYS     (default partitioner, murmur2)
//   node kjs_client.js txn BOOT TOPIC GROUP       (commit with sendOffsets, then abort)
//   node kjs_client.js consume BOOT GROUP EXPECTED TOPIC...
//
// consume prints one line per message in the sidecar format of
// test/vectors/README.md ("record TOPIC PARTITION OFFSET TIMESTAMP KEY VALUE
// NHDR [HK HV]..."; byte fields "null" or "hex:<hex>"), as kafkajs reports
// the message. keyed prints "keyed KEY PARTITION" from the produce result.
'use strict'
const { Kafka, CompressionTypes, logLevel } = require('kafkajs')

const T0 = 1700000000000
const [cmd, boot, ...args] = process.argv.slice(2)

const kafka = new Kafka({
  clientId: 'kafkajs',
  brokers: boot.split(','),
  logLevel: logLevel.NOTHING,
  retry: { retries: 3 },
})

// Same shape as rdk_client's set, minus a null header value: kafkajs 2.2.4
// cannot encode one (sizeOfHeaders calls Buffer.byteLength(null)).
function recordSet() {
  const big = 'abcdefghij'.repeat(24)
  return [
    { key: 'key-0', value: 'value-0 value-0 value-0 value-0', headers: { h1: 'v1' }, timestamp: String(T0) },
    { key: null, value: 'value-1 null key value-1 null key', timestamp: String(T0 + 7) },
    { key: 'key-2', value: null, timestamp: String(T0 + 14) },
    { key: '', value: '', headers: { 'h-empty': '' }, timestamp: String(T0 - 3) },
    {
      key: 'key-4',
      value: big,
      headers: { h1: 'v1', h2: Buffer.from([0x00, 0x01, 0xff]) },
      timestamp: String(T0 + 28),
    },
  ].map(m => ({ ...m, partition: 0 }))
}

const hex = b => (b === null || b === undefined ? 'null' : 'hex:' + Buffer.from(b).toString('hex'))

async function main() {
  if (cmd === 'metadata') {
    const admin = kafka.admin()
    await admin.connect()
    const topics = await admin.listTopics()
    await admin.fetchTopicMetadata({ topics: topics.slice(0, 1) })
    await admin.disconnect()
  } else if (cmd === 'produce') {
    const [topic, codec, mode] = args
    const idempotent = mode === 'idempotent'
    const producer = kafka.producer({ idempotent, maxInFlightRequests: idempotent ? 1 : undefined })
    await producer.connect()
    const compression = codec === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None
    await producer.send({ topic, compression, acks: -1, messages: recordSet() })
    if (idempotent) await producer.send({ topic, compression, acks: -1, messages: recordSet() })
    await producer.disconnect()
  } else if (cmd === 'keyed') {
    const [topic, n] = args
    const producer = kafka.producer()
    await producer.connect()
    for (let i = 0; i < Number(n); i++) {
      const key = `user-${i * 37}`
      const res = await producer.send({
        topic,
        messages: [{ key, value: `v${i}`, timestamp: String(T0 + i) }],
      })
      console.log(`keyed ${key} ${res[0].partition}`)
    }
    await producer.disconnect()
  } else if (cmd === 'txn') {
    const [topic, group] = args
    const producer = kafka.producer({ transactionalId: 'kjs-txn-1', idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    let txn = await producer.transaction()
    await txn.send({
      topic,
      messages: [
        { key: 'txn-key-0', value: 'committed-0', partition: 0, timestamp: String(T0 + 100) },
        { key: 'txn-key-1', value: 'committed-1', partition: 0, headers: { txn: '1' }, timestamp: String(T0 + 101) },
      ],
    })
    await txn.sendOffsets({ consumerGroupId: group, topics: [{ topic, partitions: [{ partition: 0, offset: '2' }] }] })
    await txn.commit()
    txn = await producer.transaction()
    await txn.send({ topic, messages: [{ key: 'txn-key-2', value: 'aborted-2', partition: 0, timestamp: String(T0 + 102) }] })
    await txn.abort()
    await producer.disconnect()
  } else if (cmd === 'consume') {
    const [group, expected, ...topics] = args
    const consumer = kafka.consumer({ groupId: group, readUncommitted: true })
    await consumer.connect()
    for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true })
    let got = 0
    const lines = []
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`consume: got ${got} of ${expected}`)), 40000)
      consumer
        .run({
          eachMessage: async ({ topic, partition, message }) => {
            const hs = Object.entries(message.headers || {}).flatMap(([k, v]) =>
              Array.isArray(v) ? v.map(x => [k, x]) : [[k, v]]
            )
            lines.push(
              [
                'record', topic, partition, message.offset, message.timestamp,
                hex(message.key), hex(message.value), hs.length,
                ...hs.flatMap(([k, v]) => [hex(Buffer.from(k)), hex(v)]),
              ].join(' ')
            )
            if (++got >= Number(expected)) {
              clearTimeout(timer)
              setTimeout(resolve, 1000) // let the offset commit go out
            }
          },
        })
        .catch(reject)
    })
    await consumer.disconnect()
    console.log(lines.join('\n'))
  } else {
    throw new Error(`unknown command ${cmd}`)
  }
}

main().catch(e => {
  console.error(e)
  process.exit(1)
})
