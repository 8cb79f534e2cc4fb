/**
 * The console page: a hash router over the pages (overview, topics, a topic, its messages,
 * groups, a group), a header with the cluster and whether writes are allowed. Built by
 * build-console.mjs into dist/console/console.js; served by the broker under /console/.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { usePoll } from './api.js';
import { GroupPage, GroupsPage } from './groups.js';
import { MessagesPage } from './messages.js';
import { OverviewPage } from './overview.js';
import { TopicPage } from './topic.js';
import { TopicsPage } from './topics.js';
import type { Overview } from '../console-api-types.js';

type Route =
  | { page: 'overview' }
  | { page: 'topics' }
  | { page: 'topic'; name: string }
  | { page: 'messages'; name: string }
  | { page: 'groups' }
  | { page: 'group'; id: string };

function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map((part) => decodeURIComponent(part));
  if (parts[0] === 'topics' && parts[1] !== undefined && parts[2] === 'messages') return { page: 'messages', name: parts[1] };
  if (parts[0] === 'topics' && parts[1] !== undefined && parts[1] !== '') return { page: 'topic', name: parts[1] };
  if (parts[0] === 'topics') return { page: 'topics' };
  if (parts[0] === 'groups' && parts[1] !== undefined && parts[1] !== '') return { page: 'group', id: parts[1] };
  if (parts[0] === 'groups') return { page: 'groups' };
  return { page: 'overview' };
}

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = (): void => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

function App() {
  const route = useRoute();
  const { data: overview } = usePoll<Overview>('overview', 10_000);
  const writeEnabled = overview?.writeEnabled ?? false;
  const section = route.page === 'topic' || route.page === 'messages' ? 'topics' : route.page === 'group' ? 'groups' : route.page;
  useEffect(() => {
    document.body.dataset['page'] = route.page;
  }, [route]);
  return (
    <div class="layout">
      <nav>
        <div class="brand">Tributary</div>
        <a href="#/" class={section === 'overview' ? 'active' : ''} id="nav-overview">Overview</a>
        <a href="#/topics" class={section === 'topics' ? 'active' : ''} id="nav-topics">Topics</a>
        <a href="#/groups" class={section === 'groups' ? 'active' : ''} id="nav-groups">Consumer groups</a>
        <div class="nav-footer">
          {overview && <div class="muted small">cluster {overview.clusterId}<br />broker {overview.nodeId}</div>}
          <div class={`badge ${writeEnabled ? 'write' : 'dim'}`} data-testid="write-mode">{writeEnabled ? 'writes enabled' : 'read-only'}</div>
        </div>
      </nav>
      <main>
        {route.page === 'overview' && <OverviewPage />}
        {route.page === 'topics' && <TopicsPage writeEnabled={writeEnabled} />}
        {route.page === 'topic' && <TopicPage key={route.name} name={route.name} writeEnabled={writeEnabled} />}
        {route.page === 'messages' && <MessagesPage key={route.name} topic={route.name} writeEnabled={writeEnabled} />}
        {route.page === 'groups' && <GroupsPage />}
        {route.page === 'group' && <GroupPage key={route.id} groupId={route.id} writeEnabled={writeEnabled} />}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
document.body.dataset['ready'] = 'true';
