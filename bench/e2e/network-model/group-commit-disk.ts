/**
 * Variant G (control for B): the single event loop with group commit of fsyncs. `fsync` only
 * marks the file; one setImmediate per loop turn fsyncs every marked file once, after the loop
 * has handled every frame that was readable, and only then are the produces of that turn
 * acknowledged (flush.messages=1 semantics kept: no ack before the fsync of its bytes).
 * Everything else is the real NodeDisk. It separates what a storage thread buys (the loop keeps
 * receiving during an fsync) from what grouping fsyncs buys (fewer fsyncs), which needs no thread.
 */
import { NodeDisk } from '../../../host/io/disk.js';
import type { WriteBarrier } from './partition-store.js';

export class GroupCommitDisk extends NodeDisk implements WriteBarrier {
  private readonly dirty = new Set<number>();
  private flushed: Promise<void> | null = null;
  fsyncRequests = 0;
  fsyncsDone = 0;

  override fsync(fd: number): void {
    this.fsyncRequests++;
    this.dirty.add(fd);
    if (this.flushed === null) {
      this.flushed = new Promise((resolve) => setImmediate(() => {
        for (const dirtyFd of this.dirty) super.fsync(dirtyFd);
        this.fsyncsDone += this.dirty.size;
        this.dirty.clear();
        this.flushed = null;
        resolve();
      }));
    }
  }

  override close(fd: number): void {
    if (this.dirty.delete(fd)) super.fsync(fd);
    super.close(fd);
  }

  afterPendingWrites(): Promise<void> | null {
    return this.flushed;
  }
}
