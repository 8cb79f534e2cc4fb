/** Small pieces the pages share. */

export function ErrorLine({ error }: { error: Error | null }) {
  return error === null ? null : <p class="error" data-testid="error">{error.message}</p>;
}

/** Why a write form is missing: the console is read-only unless the broker allows writes. */
export function WriteNote({ what }: { what: string }) {
  return <p class="muted write-note" data-testid="write-disabled">Read-only: start the broker with <code>console.write.enable=true</code> to {what} here.</p>;
}

/**
 * Previous / next buttons under a paged list: `shown` rows from `offset` of `total`; `previous`
 * and `next` are the offsets the buttons go to, null to disable one.
 */
export function Pager({ offset, shown, total, previous, next, onOffset }: {
  offset: number; shown: number; total: number; previous: number | null; next: number | null; onOffset: (offset: number) => void;
}) {
  if (previous === null && next === null && offset === 0) return <p class="muted">{total} in all</p>;
  return (
    <div class="pager">
      <button disabled={previous === null} onClick={() => previous !== null && onOffset(previous)}>Previous</button>
      <span>{shown === 0 ? offset : offset + 1}–{offset + shown} of {total}</span>
      <button disabled={next === null} onClick={() => next !== null && onOffset(next)}>Next</button>
    </div>
  );
}

/** A Burrow-style status (OK, WARNING, STALLED, STOPPED); a dash when the broker has none. */
export function StatusBadge({ status, testId }: { status: string | null; testId?: string }) {
  if (status === null) return <span class="muted" data-testid={testId}>—</span>;
  return <span class={`status status-${status.toLowerCase()}`} data-testid={testId} data-status={status}>{status}</span>;
}
