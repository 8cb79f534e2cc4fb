/** The overview: brokers, controller and quorum, counts, and live throughput charts. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, usePoll } from './api.js';
import { Chart } from './chart.js';
import { formatByteRate, formatBytes, formatNumber, formatRate } from './format.js';
import type { Overview, Throughput, ThroughputSample } from '../console-api-types.js';

/** How many seconds of samples the charts keep (the broker keeps 5 minutes). */
const WINDOW_SECONDS = 300;

export function OverviewPage() {
  const { data, error } = usePoll<Overview>('overview', 3000);
  const samples = useThroughput();
  const charts = useMemo(() => {
    const x = samples.map((s) => s.timeMs / 1000);
    return {
      messages: [x, samples.map((s) => s.messagesInPerSec)] as [number[], ...(number | null)[][]],
      bytes: [x, samples.map((s) => s.bytesInPerSec), samples.map((s) => s.bytesOutPerSec)] as [number[], ...(number | null)[][]],
    };
  }, [samples]);
  const last = samples[samples.length - 1];
  return (
    <section>
      <h1>Overview</h1>
      {error && <p class="error">{error.message}</p>}
      {data && (
        <div class="cards">
          <Card label="Brokers" value={formatNumber(data.brokers.length)} testId="brokers" />
          <Card label="Active controller" value={String(data.controllerId)} testId="controller" />
          <Card label="Topics" value={formatNumber(data.topics)} testId="topics" />
          <Card label="Partitions" value={formatNumber(data.partitions)} testId="partitions" />
          <Card label="Under-replicated" value={formatNumber(data.underReplicatedPartitions)} testId="under-replicated" warn={data.underReplicatedPartitions > 0} />
          <Card label="Offline" value={formatNumber(data.offlinePartitions)} testId="offline" warn={data.offlinePartitions > 0} />
          <Card label="Consumer groups" value={formatNumber(data.groups)} testId="groups" />
          <Card label="Messages in" value={formatRate(last?.messagesInPerSec, 'msg')} testId="rate-messages-in" />
          <Card label="Bytes in" value={formatByteRate(last?.bytesInPerSec)} testId="rate-bytes-in" />
          <Card label="Bytes out" value={formatByteRate(last?.bytesOutPerSec)} testId="rate-bytes-out" />
        </div>
      )}
      <div class="charts">
        <Chart title="Messages in per second" testId="chart-messages" data={charts.messages}
          series={[{ label: 'in', color: '#4ea1ff', format: (v) => formatNumber(Math.round(v)) }]} />
        <Chart title="Bytes per second" testId="chart-bytes" data={charts.bytes}
          series={[{ label: 'in', color: '#4ea1ff', format: formatBytes }, { label: 'out', color: '#f0a04b', format: formatBytes, dash: [6, 4] }]} />
      </div>
      {data && <Brokers overview={data} />}
      {data?.quorum && <Quorum overview={data} />}
    </section>
  );
}

/** The broker's 1 s samples: the last minutes at once, then what is new every second. */
function useThroughput(): ThroughputSample[] {
  const [samples, setSamples] = useState<ThroughputSample[]>([]);
  useEffect(() => {
    let stopped = false;
    let since = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async (): Promise<void> => {
      try {
        const answer = await api<Throughput>(`throughput?since=${since}`);
        if (!stopped && answer.samples.length > 0) {
          since = answer.samples[answer.samples.length - 1]!.timeMs;
          setSamples((old) => [...old, ...answer.samples].slice(-WINDOW_SECONDS));
        }
      } catch {
        // The next poll retries; the cards show the overview's own error.
      }
      if (!stopped) timer = setTimeout(() => void run(), 1000);
    };
    void run();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);
  return samples;
}

function Card({ label, value, testId, warn }: { label: string; value: string; testId: string; warn?: boolean }) {
  return (
    <div class={`card${warn ? ' warn' : ''}`}>
      <div class="card-label">{label}</div>
      <div class="card-value" data-testid={testId}>{value}</div>
    </div>
  );
}

function Brokers({ overview }: { overview: Overview }) {
  return (
    <>
      <h2>Brokers <span class="muted">cluster {overview.clusterId}</span></h2>
      <table data-testid="broker-table">
        <thead><tr><th>Node</th><th>Endpoint</th><th>Rack</th><th>Role</th></tr></thead>
        <tbody>
          {overview.brokers.map((b) => (
            <tr key={b.nodeId}>
              <td>{b.nodeId}</td>
              <td class="mono">{b.host}:{b.port}</td>
              <td>{b.rack ?? '—'}</td>
              <td>
                {b.nodeId === overview.controllerId && <span class="badge">controller</span>}
                {b.nodeId === overview.nodeId && <span class="badge dim">this console</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Quorum({ overview }: { overview: Overview }) {
  const quorum = overview.quorum!;
  const replicas = [...quorum.voters.map((r) => ({ ...r, role: 'voter' })), ...quorum.observers.map((r) => ({ ...r, role: 'observer' }))];
  return (
    <>
      <h2>Metadata quorum <span class="muted">leader {quorum.leaderId}, epoch {quorum.leaderEpoch}, high watermark {formatNumber(quorum.highWatermark)}</span></h2>
      <table data-testid="quorum-table">
        <thead><tr><th>Node</th><th>Role</th><th>Log end offset</th><th>Lag</th></tr></thead>
        <tbody>
          {replicas.map((r) => (
            <tr key={`${r.role}-${r.replicaId}`}>
              <td>{r.replicaId}{r.replicaId === quorum.leaderId && <span class="badge">leader</span>}</td>
              <td>{r.role}</td>
              <td>{formatNumber(r.logEndOffset)}</td>
              <td>{formatNumber(r.lag)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
