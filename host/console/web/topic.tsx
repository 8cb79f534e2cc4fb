/** One topic: partitions (leader, replicas, ISR, offsets, size), configs, add partitions, delete. */
import { useState } from 'preact/hooks';
import { api, usePoll } from './api.js';
import { formatBytes, formatNumber } from './format.js';
import type { TopicDetail } from '../console-api-types.js';
import { ErrorLine, WriteNote } from './widgets.js';

export function TopicPage({ name, writeEnabled }: { name: string; writeEnabled: boolean }) {
  const { data, error, refresh } = usePoll<TopicDetail>(`topics/${encodeURIComponent(name)}`, 3000);
  return (
    <section>
      <h1>Topic <span class="mono">{name}</span> <a class="button" href={`#/topics/${encodeURIComponent(name)}/messages`}>Messages</a></h1>
      <ErrorLine error={error} />
      {data && (
        <>
          <h2>Partitions</h2>
          <table data-testid="partitions-table">
            <thead><tr><th class="num">Partition</th><th class="num">Leader</th><th>Replicas</th><th>ISR</th><th class="num">Log start</th><th class="num">High watermark</th><th class="num">Messages</th><th class="num">Size (this broker)</th></tr></thead>
            <tbody>
              {data.partitions.map((p) => (
                <tr key={p.partition} data-partition={p.partition}>
                  <td class="num">{p.partition}</td>
                  <td class={`num${p.leader < 0 ? ' warn-text' : ''}`} data-col="leader">{p.leader < 0 ? 'none' : p.leader}</td>
                  <td data-col="replicas">{p.replicas.join(', ')}</td>
                  <td data-col="isr" class={p.isr.length < p.replicas.length ? 'warn-text' : ''}>{p.isr.join(', ')}</td>
                  <td class="num" data-col="log-start">{formatNumber(p.logStartOffset)}</td>
                  <td class="num" data-col="high-watermark">{formatNumber(p.highWatermark)}</td>
                  <td class="num">{p.highWatermark === null || p.logStartOffset === null ? '—' : formatNumber(p.highWatermark - p.logStartOffset)}</td>
                  <td class="num">{formatBytes(p.sizeBytes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {writeEnabled ? <TopicActions name={name} partitions={data.partitions.length} onChanged={refresh} /> : <WriteNote what="add partitions or delete this topic" />}
          <h2>Configs</h2>
          <table data-testid="configs-table" class="configs">
            <thead><tr><th>Name</th><th>Value</th><th>Source</th></tr></thead>
            <tbody>
              {data.configs.map((c) => (
                <tr key={c.name} class={c.isDefault ? 'dim' : 'override'}>
                  <td class="mono">{c.name}</td>
                  <td class="mono">{c.sensitive ? '(sensitive)' : c.value ?? 'null'}</td>
                  <td>{c.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function TopicActions({ name, partitions, onChanged }: { name: string; partitions: number; onChanged: () => void }) {
  const [count, setCount] = useState(String(partitions + 1));
  const [confirm, setConfirm] = useState('');
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const run = async (action: () => Promise<unknown>, done: string): Promise<void> => {
    try {
      await action();
      setResult({ ok: true, text: done });
      onChanged();
    } catch (error) {
      setResult({ ok: false, text: (error as Error).message });
    }
  };
  return (
    <div class="panel">
      <div class="form-row">
        <label>Partitions <input id="partition-count" value={count} onInput={(e) => setCount(e.currentTarget.value)} /></label>
        <button id="add-partitions" onClick={() => void run(() => api(`topics/${encodeURIComponent(name)}/partitions`, 'POST', { count: Number(count) }), `${name} has ${count} partitions`)}>Add partitions</button>
      </div>
      <div class="form-row">
        <input id="delete-confirm" placeholder={`type ${name} to delete`} value={confirm} onInput={(e) => setConfirm(e.currentTarget.value)} />
        <button id="delete-topic" class="danger" disabled={confirm !== name}
          onClick={() => void run(async () => { await api(`topics/${encodeURIComponent(name)}`, 'DELETE'); location.hash = '#/topics'; }, `Deleted ${name}`)}>Delete topic</button>
      </div>
      {result && <p class={result.ok ? 'ok' : 'error'} data-testid="topic-action-result">{result.text}</p>}
    </div>
  );
}
