/** The topics list (paged, searchable) and the create form. */
import { useState } from 'preact/hooks';
import { api, usePoll } from './api.js';
import { formatBytes, formatNumber } from './format.js';
import type { TopicsPage } from '../console-api-types.js';
import { ErrorLine, Pager, WriteNote } from './widgets.js';

export function TopicsPage({ writeEnabled }: { writeEnabled: boolean }) {
  const [search, setSearch] = useState('');
  // Where the pages before this one started: pages end at a topic count or a partition count
  // (console.topics.max.page.partitions), so Previous goes back to where it was, not `limit` back.
  const [starts, setStarts] = useState<number[]>([]);
  const offset = starts.at(-1) ?? 0;
  const [internal, setInternal] = useState(false);
  const { data, error, refresh } = usePoll<TopicsPage>(
    `topics?offset=${offset}&internal=${internal}&search=${encodeURIComponent(search)}`, 3000); // the broker's console.topics.page.size
  return (
    <section>
      <h1>Topics</h1>
      <div class="toolbar">
        <input placeholder="Filter by name" value={search} onInput={(e) => { setSearch(e.currentTarget.value); setStarts([]); }} />
        <label><input type="checkbox" checked={internal} onChange={(e) => { setInternal(e.currentTarget.checked); setStarts([]); }} /> internal topics</label>
      </div>
      <ErrorLine error={error} />
      <table data-testid="topics-table">
        <thead><tr><th>Topic</th><th class="num">Partitions</th><th class="num">Replication</th><th class="num">Messages</th><th class="num">Size (this broker)</th><th class="num">Under-replicated</th></tr></thead>
        <tbody>
          {data?.topics.map((t) => (
            <tr key={t.name} data-topic={t.name}>
              <td><a href={`#/topics/${encodeURIComponent(t.name)}`}>{t.name}</a>{t.internal && <span class="badge dim">internal</span>}</td>
              <td class="num" data-col="partitions">{t.partitions}</td>
              <td class="num">{t.replicationFactor}</td>
              <td class="num" data-col="messages">{formatNumber(t.messages)}</td>
              <td class="num">{formatBytes(t.sizeBytes)}</td>
              <td class={`num${t.underReplicatedPartitions > 0 ? ' warn-text' : ''}`}>{t.underReplicatedPartitions}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && <Pager offset={offset} shown={data.topics.length} total={data.total}
        previous={starts.length === 0 ? null : (starts.at(-2) ?? 0)} next={data.nextOffset}
        onOffset={(to) => setStarts(to === data.nextOffset ? [...starts, to] : starts.slice(0, -1))} />}
      {writeEnabled ? <CreateTopic onCreated={refresh} /> : <WriteNote what="create topics" />}
    </section>
  );
}

function CreateTopic({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [partitions, setPartitions] = useState('');
  const [replication, setReplication] = useState('');
  const [configs, setConfigs] = useState('');
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    try {
      const parsed: Record<string, string> = {};
      for (const line of configs.split('\n').map((l) => l.trim()).filter((l) => l !== '')) {
        const at = line.indexOf('=');
        if (at <= 0) throw new Error(`"${line}" is not key=value`);
        parsed[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      }
      await api('topics', 'POST', { name, partitions: partitions || undefined, replicationFactor: replication || undefined, configs: parsed });
      setResult({ ok: true, text: `Created ${name}` });
      setName('');
      onCreated();
    } catch (error) {
      setResult({ ok: false, text: (error as Error).message });
    }
  };
  return (
    <form class="panel" onSubmit={(e) => void submit(e)} data-testid="create-topic">
      <h2>Create a topic</h2>
      <div class="form-row">
        <input id="create-name" placeholder="name" value={name} required onInput={(e) => setName(e.currentTarget.value)} />
        <input id="create-partitions" placeholder="partitions (num.partitions)" value={partitions} onInput={(e) => setPartitions(e.currentTarget.value)} />
        <input id="create-replication" placeholder="replication factor (default)" value={replication} onInput={(e) => setReplication(e.currentTarget.value)} />
      </div>
      <textarea id="create-configs" placeholder={'configs, one key=value a line\nretention.ms=86400000'} value={configs} onInput={(e) => setConfigs(e.currentTarget.value)} />
      <button type="submit" id="create-submit">Create</button>
      {result && <p class={result.ok ? 'ok' : 'error'} data-testid="create-result">{result.text}</p>}
    </form>
  );
}
