/** Small pieces the pages share. */

export function ErrorLine({ error }: { error: Error | null }) {
  return error === null ? null : <p class="error" data-testid="error">{error.message}</p>;
}

/** Why a write form is missing: the console is read-only unless the broker allows writes. */
export function WriteNote({ what }: { what: string }) {
  return <p class="muted write-note" data-testid="write-disabled">Read-only: start the broker with <code>console.write.enable=true</code> to {what} here.</p>;
}

export function Pager({ offset, page, total, onOffset }: { offset: number; page: number; total: number; onOffset: (offset: number) => void }) {
  if (total <= page) return <p class="muted">{total} in all</p>;
  return (
    <div class="pager">
      <button disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - page))}>Previous</button>
      <span>{offset + 1}–{Math.min(total, offset + page)} of {total}</span>
      <button disabled={offset + page >= total} onClick={() => onOffset(offset + page)}>Next</button>
    </div>
  );
}

/** A Burrow-style status (OK, WARNING, STALLED, STOPPED); a dash when the broker has none. */
export function StatusBadge({ status, testId }: { status: string | null; testId?: string }) {
  if (status === null) return <span class="muted" data-testid={testId}>—</span>;
  return <span class={`status status-${status.toLowerCase()}`} data-testid={testId} data-status={status}>{status}</span>;
}
