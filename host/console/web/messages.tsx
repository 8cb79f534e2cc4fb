/**
 * The message browser of one topic: a partition's newest records, or from an offset or a time,
 * newest first; keys, values and headers as text, JSON or hex; a search over the loaded window;
 * "follow" reloads the newest records every two seconds. And the produce form.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, type ApiError } from './api.js';
import { formatNumber, formatTime, showBytes, type ViewFormat } from './format.js';
import type { Browse, BrowsedRecord, TopicDetail } from '../console-api-types.js';
import { ErrorLine, WriteNote } from './widgets.js';

type Mode = 'newest' | 'offset' | 'timestamp';

export function MessagesPage({ topic, writeEnabled }: { topic: string; writeEnabled: boolean }) {
  const [partitions, setPartitions] = useState<number[]>([0]);
  const [partition, setPartition] = useState(0);
  const [mode, setMode] = useState<Mode>('newest');
  const [from, setFrom] = useState('');
  const [limit, setLimit] = useState('50');
  const [format, setFormat] = useState<ViewFormat>('text');
  const [search, setSearch] = useState('');
  const [follow, setFollow] = useState(false);
  const [browse, setBrowse] = useState<Browse | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [loads, setLoads] = useState(0);
  useEffect(() => {
    api<TopicDetail>(`topics/${encodeURIComponent(topic)}`).then((t) => setPartitions(t.partitions.map((p) => p.partition)), (e: ApiError) => setError(e));
  }, [topic]);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<void> => {
      const params = new URLSearchParams({ partition: String(partition), limit });
      if (mode === 'offset' && from !== '') params.set('offset', from);
      if (mode === 'timestamp' && from !== '') params.set('timestamp', String(Date.parse(from)));
      try {
        const answer = await api<Browse>(`topics/${encodeURIComponent(topic)}/messages?${params}`);
        if (!stopped) {
          setBrowse(answer);
          setError(null);
        }
      } catch (caught) {
        if (!stopped) setError(caught as Error);
      }
      if (!stopped && follow && mode === 'newest') timer = setTimeout(() => void load(), 2000);
    };
    void load();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
    // Reloads on the Load button (loads), on a partition change, and while following.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [topic, partition, loads, follow]);
  const shown = useMemo(() => filterRecords(browse?.records ?? [], search), [browse, search]);
  return (
    <section>
      <h1>Messages of <a class="mono" href={`#/topics/${encodeURIComponent(topic)}`}>{topic}</a></h1>
      <form class="toolbar" onSubmit={(e) => { e.preventDefault(); setLoads((n) => n + 1); }}>
        <label>Partition <select id="browse-partition" value={partition} onChange={(e) => setPartition(Number(e.currentTarget.value))}>
          {partitions.map((p) => <option key={p} value={p}>{p}</option>)}
        </select></label>
        <select id="browse-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as Mode)}>
          <option value="newest">newest</option><option value="offset">from offset</option><option value="timestamp">from time</option>
        </select>
        {mode !== 'newest' && <input id="browse-from" placeholder={mode === 'offset' ? 'offset' : '2026-01-31T12:00:00Z'} value={from} onInput={(e) => setFrom(e.currentTarget.value)} />}
        <label>Limit <input id="browse-limit" class="short" value={limit} onInput={(e) => setLimit(e.currentTarget.value)} /></label>
        <button type="submit" id="browse-load">Load</button>
        <label><input type="checkbox" id="browse-follow" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} /> follow</label>
        <select id="browse-format" value={format} onChange={(e) => setFormat(e.currentTarget.value as ViewFormat)}>
          <option value="text">text</option><option value="json">JSON</option><option value="hex">hex</option>
        </select>
        <input id="browse-search" placeholder="Search loaded records" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
      </form>
      <ErrorLine error={error} />
      {browse && (
        <p class="muted" data-testid="browse-range">
          Offsets {formatNumber(browse.startOffset)}–{formatNumber(browse.endOffset - 1)} of partition {browse.partition} (log start {formatNumber(browse.logStartOffset)}, high watermark {formatNumber(browse.highWatermark)}); {shown.length} of {browse.records.length} shown
        </p>
      )}
      <table data-testid="records-table" class="records">
        <thead><tr><th class="num">Offset</th><th>Timestamp</th><th>Key</th><th>Value</th><th>Headers</th></tr></thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.offset} class="record" data-offset={r.offset}>
              <td class="num">{r.offset}</td>
              <td class="nowrap" title={r.timestampType}>{formatTime(r.timestamp)}</td>
              <td><pre data-col="key">{showBytes(r.key, format)}</pre></td>
              <td><pre data-col="value">{showBytes(r.value, format)}</pre></td>
              <td>{r.headers.map((h, i) => <div key={i} class="mono header">{h.key}: {showBytes(h.value, format)}</div>)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {writeEnabled ? <ProduceForm topic={topic} partitions={partitions} onProduced={() => setLoads((n) => n + 1)} /> : <WriteNote what="produce" />}
    </section>
  );
}

/** Records whose key, value or a header (as text) contains `search`, case-insensitive. */
function filterRecords(records: BrowsedRecord[], search: string): BrowsedRecord[] {
  const needle = search.trim().toLowerCase();
  if (needle === '') return records;
  return records.filter((r) => {
    const texts = [showBytes(r.key, 'text'), showBytes(r.value, 'text'), ...r.headers.flatMap((h) => [h.key, showBytes(h.value, 'text')])];
    return texts.some((text) => text.toLowerCase().includes(needle));
  });
}

function ProduceForm({ topic, partitions, onProduced }: { topic: string; partitions: number[]; onProduced: () => void }) {
  const [partition, setPartition] = useState('');
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [headers, setHeaders] = useState('');
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    try {
      const parsedHeaders = headers.split('\n').map((l) => l.trim()).filter((l) => l !== '').map((line) => {
        const at = line.indexOf('=');
        return at < 0 ? { key: line, value: null } : { key: line.slice(0, at), value: line.slice(at + 1) };
      });
      const answer = await api<{ partition: number; offset: number }>(`topics/${encodeURIComponent(topic)}/messages`, 'POST',
        { partition: partition === '' ? undefined : Number(partition), key: key === '' ? null : key, value, headers: parsedHeaders });
      setResult({ ok: true, text: `Written to partition ${answer.partition} at offset ${answer.offset}` });
      onProduced();
    } catch (error) {
      setResult({ ok: false, text: (error as Error).message });
    }
  };
  return (
    <form class="panel" onSubmit={(e) => void submit(e)} data-testid="produce-form">
      <h2>Produce a record</h2>
      <div class="form-row">
        <select id="produce-partition" value={partition} onChange={(e) => setPartition(e.currentTarget.value)}>
          <option value="">partitioner decides</option>
          {partitions.map((p) => <option key={p} value={p}>partition {p}</option>)}
        </select>
        <input id="produce-key" placeholder="key (empty = null)" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
      </div>
      <textarea id="produce-value" placeholder="value" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      <textarea id="produce-headers" class="short" placeholder={'headers, one key=value a line'} value={headers} onInput={(e) => setHeaders(e.currentTarget.value)} />
      <button type="submit" id="produce-submit">Produce</button>
      {result && <p class={result.ok ? 'ok' : 'error'} data-testid="produce-result">{result.text}</p>}
    </form>
  );
}
