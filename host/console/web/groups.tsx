/** Consumer groups: the list, and one group with members, lag (offsets and seconds) and a reset form. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, usePoll } from './api.js';
import { Chart } from './chart.js';
import { formatNumber, formatSeconds } from './format.js';
import type { GroupDetail, GroupsPage } from '../console-api-types.js';
import { ErrorLine, Pager, StatusBadge, WriteNote } from './widgets.js';

const PAGE = 50;
/** Lag points the group chart keeps (one per poll, 2 s apart: 10 minutes). */
const LAG_HISTORY = 300;

export function GroupsPage() {
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const { data, error } = usePoll<GroupsPage>(`groups?offset=${offset}&limit=${PAGE}&search=${encodeURIComponent(search)}`, 3000);
  return (
    <section>
      <h1>Consumer groups</h1>
      <div class="toolbar"><input placeholder="Filter by id" value={search} onInput={(e) => { setSearch(e.currentTarget.value); setOffset(0); }} /></div>
      <ErrorLine error={error} />
      <table data-testid="groups-table">
        <thead><tr><th>Group</th><th>State</th><th>Status</th><th class="num">Members</th><th class="num">Lag (messages)</th><th class="num">Lag (time)</th></tr></thead>
        <tbody>
          {data?.groups.map((g) => (
            <tr key={g.groupId} data-group={g.groupId}>
              <td><a href={`#/groups/${encodeURIComponent(g.groupId)}`}>{g.groupId}</a></td>
              <td data-col="state">{g.state}</td>
              <td data-col="status"><StatusBadge status={g.status} /></td>
              <td class="num" data-col="members">{g.members}</td>
              <td class="num" data-col="lag">{formatNumber(g.lag)}</td>
              <td class="num">{formatSeconds(g.lagSeconds)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && <Pager offset={offset} shown={data.groups.length} total={data.total} onOffset={setOffset}
        previous={offset === 0 ? null : Math.max(0, offset - PAGE)} next={offset + PAGE < data.total ? offset + PAGE : null} />}
    </section>
  );
}

export function GroupPage({ groupId, writeEnabled }: { groupId: string; writeEnabled: boolean }) {
  const { data, error, refresh } = usePoll<GroupDetail>(`groups/${encodeURIComponent(groupId)}`, 2000);
  const history = useLagHistory(data);
  return (
    <section>
      <h1>Group <span class="mono">{groupId}</span> {data && <StatusBadge status={data.status} testId="group-status" />}</h1>
      <ErrorLine error={error} />
      {data && (
        <>
          <div class="cards">
            <div class="card"><div class="card-label">State</div><div class="card-value" data-testid="group-state">{data.state}</div></div>
            <div class="card"><div class="card-label">Members</div><div class="card-value">{data.members.length}</div></div>
            <div class="card"><div class="card-label">Lag (messages)</div><div class="card-value" data-testid="group-lag">{formatNumber(data.lag)}</div></div>
            <div class="card"><div class="card-label">Lag (time)</div><div class="card-value" data-testid="group-lag-seconds">{formatSeconds(data.lagSeconds)}</div></div>
            <div class="card"><div class="card-label">Assignor</div><div class="card-value">{data.protocol || '—'}</div></div>
          </div>
          <Chart title="Lag" testId="chart-lag" height={140} data={history}
            series={[{ label: 'messages', color: '#4ea1ff', format: (v) => formatNumber(Math.round(v)) }, { label: 'seconds', color: '#f0a04b', format: (v) => formatSeconds(v) }]} />
          <h2>Members</h2>
          <table data-testid="members-table">
            <thead><tr><th>Member</th><th>Client</th><th>Host</th><th>Assignment</th></tr></thead>
            <tbody>
              {data.members.length === 0 && <tr><td colSpan={4} class="muted">no members: nobody consumes for this group now</td></tr>}
              {data.members.map((m) => (
                <tr key={m.memberId}>
                  <td class="mono">{m.groupInstanceId ?? m.memberId}</td>
                  <td>{m.clientId}</td>
                  <td class="mono">{m.clientHost}</td>
                  <td>{m.assignment.map((a) => `${a.topic} [${a.partitions.join(', ')}]`).join('; ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Offsets</h2>
          <table data-testid="offsets-table">
            <thead><tr><th>Topic</th><th class="num">Partition</th><th class="num">Committed</th><th class="num">Log end</th><th class="num">Lag</th><th class="num">Lag (time)</th><th>Status</th><th>Member</th></tr></thead>
            <tbody>
              {data.offsets.map((o) => (
                <tr key={`${o.topic}-${o.partition}`} data-topic={o.topic} data-partition={o.partition}>
                  <td>{o.topic}</td>
                  <td class="num">{o.partition}</td>
                  <td class="num" data-col="committed">{o.committedOffset < 0 ? 'none' : formatNumber(o.committedOffset)}</td>
                  <td class="num" data-col="log-end">{formatNumber(o.logEndOffset)}</td>
                  <td class="num" data-col="lag">{formatNumber(o.lag)}</td>
                  <td class="num" data-col="lag-seconds">{formatSeconds(o.lagSeconds)}</td>
                  <td><StatusBadge status={o.status} /></td>
                  <td class="mono small">{o.memberId ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {writeEnabled ? <ResetOffsets group={data} onReset={refresh} /> : <WriteNote what="reset this group's offsets" />}
        </>
      )}
    </section>
  );
}

/** Total lag and the largest lag in seconds, one point per poll, while the page is open. */
function useLagHistory(data: GroupDetail | null): [number[], (number | null)[], (number | null)[]] {
  const [points, setPoints] = useState<{ t: number; lag: number; seconds: number | null }[]>([]);
  useEffect(() => {
    if (data === null) return;
    setPoints((old) => [...old, { t: Date.now() / 1000, lag: data.lag, seconds: data.lagSeconds }].slice(-LAG_HISTORY));
  }, [data]);
  return useMemo(() => [points.map((p) => p.t), points.map((p) => p.lag), points.map((p) => p.seconds)], [points]);
}

function ResetOffsets({ group, onReset }: { group: GroupDetail; onReset: () => void }) {
  const topics = [...new Set(group.offsets.map((o) => o.topic))];
  const [topic, setTopic] = useState('');
  const [to, setTo] = useState('earliest');
  const [value, setValue] = useState('');
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const empty = group.state === 'Empty' || group.state === 'Dead';
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const target = to === 'offset' ? { offset: Number(value) } : to === 'timestamp' ? { timestamp: Date.parse(value) } : to;
    try {
      const answer = await api<{ offsets: unknown[] }>(`groups/${encodeURIComponent(group.groupId)}/offsets`, 'POST', { topic: topic || undefined, to: target });
      setResult({ ok: true, text: `Reset ${answer.offsets.length} partition(s)` });
      onReset();
    } catch (error) {
      setResult({ ok: false, text: (error as Error).message });
    }
  };
  return (
    <form class="panel" onSubmit={(e) => void submit(e)} data-testid="reset-form">
      <h2>Reset offsets</h2>
      {!empty && <p class="muted">The group has members: stop its consumers first (Kafka refuses to reset a group that is not empty).</p>}
      <div class="form-row">
        <select id="reset-topic" value={topic} onChange={(e) => setTopic(e.currentTarget.value)}>
          <option value="">every topic</option>
          {topics.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
        <select id="reset-to" value={to} onChange={(e) => setTo(e.currentTarget.value)}>
          <option value="earliest">to earliest</option><option value="latest">to latest</option>
          <option value="offset">to offset</option><option value="timestamp">to time</option>
        </select>
        {(to === 'offset' || to === 'timestamp') && <input id="reset-value" placeholder={to === 'offset' ? 'offset' : '2026-01-31T12:00:00Z'} value={value} onInput={(e) => setValue(e.currentTarget.value)} />}
        <button type="submit" id="reset-submit" disabled={!empty}>Reset</button>
      </div>
      {result && <p class={result.ok ? 'ok' : 'error'} data-testid="reset-result">{result.text}</p>}
    </form>
  );
}
