// The example page's script: a Producer driven by a form and a Consumer that shows records as
// they arrive, both through the broker's WebSocket gateway. It imports the browser bundle built by
// `npm run build:browser`; `?gateway=ws://host:port/kafka` in the page URL picks the gateway.
import { Admin, Consumer, Producer, viaWebSocketGateway } from '../dist/browser/tributary.js';

/** Rows kept in the table; older ones are dropped so a busy topic cannot grow the page forever. */
const MAX_ROWS = 500;

const $ = (id) => document.getElementById(id);
const decoder = new TextDecoder();
const text = (bytes) => (bytes === null ? '(null)' : decoder.decode(bytes));

const fromQuery = new URLSearchParams(location.search).get('gateway');
if (fromQuery !== null) $('gateway').value = fromQuery;

function setStatus(message, isError = false) {
  $('status').textContent = message;
  $('status').className = isError ? 'error' : '';
}

/** The running consumer and its run() promise, when consuming. */
let consumer = null;
let running = null;

/** Clients for the current gateway URL, made on first use and remade when the URL changes. */
let clients = null;
function gatewayClients() {
  const url = $('gateway').value.trim();
  if (clients !== null && clients.url === url) return clients;
  if (clients !== null) void closeClients(clients);
  const gateway = viaWebSocketGateway(url);
  clients = { url, gateway, producers: new Map(), admin: new Admin({ ...gateway, clientId: 'browser-example' }) };
  return clients;
}

async function closeClients(old) {
  await Promise.allSettled([...old.producers.values()].map((producer) => producer.close()));
  await old.admin.close().catch(() => undefined);
}

/** One producer per compression codec, made when first used. */
function producerFor(compression) {
  const { gateway, producers } = gatewayClients();
  let producer = producers.get(compression);
  if (producer === undefined) {
    producer = new Producer({ ...gateway, clientId: 'browser-example', compression, lingerMs: 5 });
    producers.set(compression, producer);
  }
  return producer;
}

$('produce-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const result = $('produce-result');
  const topic = $('produce-topic').value.trim();
  const key = $('produce-key').value;
  const value = $('produce-value').value;
  $('produce-send').disabled = true;
  try {
    const [metadata] = await producerFor($('produce-compression').value).send({
      topic,
      messages: [{ key: key === '' ? null : key, value }],
    });
    result.textContent = `sent to ${metadata.topic}-${metadata.partition} at offset ${metadata.offset}`;
    result.className = '';
    result.dataset.offset = String(metadata.offset);
    $('produce-value').value = '';
    if (consumer === null) setStatus(`connected to ${gatewayClients().url}`);
  } catch (error) {
    result.textContent = `send failed: ${error.message}`;
    result.className = 'error';
  } finally {
    $('produce-send').disabled = false;
  }
});

function showRecord(record) {
  const row = document.createElement('tr');
  row.className = 'record';
  row.dataset.partition = String(record.partition);
  row.dataset.offset = String(record.offset);
  for (const cell of [record.partition, record.offset, text(record.key), text(record.value), new Date(record.timestamp).toISOString()]) {
    const td = document.createElement('td');
    td.textContent = String(cell);
    row.append(td);
  }
  const body = $('records');
  body.prepend(row);
  while (body.rows.length > MAX_ROWS) body.deleteRow(body.rows.length - 1);
}

async function startConsuming() {
  const { gateway, admin, url } = gatewayClients();
  const topic = $('consume-topic').value.trim();
  const groupId = $('consume-group').value.trim();
  const from = $('consume-from').value;
  consumer = new Consumer({
    ...gateway,
    clientId: 'browser-example',
    autoOffsetReset: from,
    // A group notices a topic created after it subscribed at the next metadata refresh: keep it short here.
    ...(groupId === '' ? {} : { groupId, metadataMaxAgeMs: 3000 }),
  });
  if (groupId === '') {
    // No group: read every partition of the topic, from the chosen end.
    const [description] = await admin.describeTopics({ topics: [topic] }).catch((error) => {
      throw new Error(`${error.message} (without a group the topic must exist: produce to it first)`);
    });
    const partitions = description.partitions.map((p) => ({ topic, partition: p.partition }));
    consumer.assign(partitions);
    if (from === 'earliest') await consumer.seekToBeginning(partitions);
    else await consumer.seekToEnd(partitions);
  } else {
    consumer.subscribe([topic]);
  }
  running = consumer.run({ pollTimeoutMs: 500, eachMessage: ({ message }) => showRecord(message) });
  running.catch((error) => setStatus(`consumer stopped: ${error.message}`, true));
  setStatus(`consuming ${topic}${groupId === '' ? '' : ` in group ${groupId}`} through ${url}`);
  document.body.dataset.consuming = 'true';
}

async function stopConsuming() {
  const current = consumer;
  consumer = null;
  if (current === null) return;
  current.stop();
  await running?.catch(() => undefined);
  await current.close().catch(() => undefined);
  delete document.body.dataset.consuming;
}

$('consume-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('consume-start').disabled = true;
  try {
    await stopConsuming();
    await startConsuming();
    $('consume-stop').disabled = false;
  } catch (error) {
    setStatus(`cannot consume: ${error.message}`, true);
  } finally {
    $('consume-start').disabled = false;
  }
});

$('consume-stop').addEventListener('click', async () => {
  $('consume-stop').disabled = true;
  await stopConsuming();
  setStatus('stopped');
});

// Leave the group cleanly (commit, LeaveGroup) when the page goes away.
window.addEventListener('pagehide', () => {
  void stopConsuming();
  if (clients !== null) void closeClients(clients);
});

document.body.dataset.ready = 'true';
